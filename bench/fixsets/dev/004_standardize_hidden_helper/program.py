import torch
import torch.nn as nn


def standardize(h, eps=1e-5):
    h -= h.mean(dim=0, keepdim=True)
    h /= h.std(dim=0, keepdim=True) + eps
    return h


class WhitenedMLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hidden)
        self.fc2 = nn.Linear(d_hidden, d_out)

    def forward(self, x):
        h = standardize(self.fc1(x))
        return self.fc2(torch.relu(h))


def main():
    torch.manual_seed(0)
    net = WhitenedMLP(5, 12, 3)
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    x = torch.randn(20, 5)
    target = torch.randn(20, 3)
    history = []
    for step in range(3):
        pred = net(x)
        loss = ((pred - target) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())
    return {
        "history": history,
        "fc1.weight": net.fc1.weight.detach().clone(),
        "fc1.weight.grad": net.fc1.weight.grad,
        "fc2.weight": net.fc2.weight.detach().clone(),
        "fc2.bias.grad": net.fc2.bias.grad,
    }


if __name__ == "__main__":
    main()
