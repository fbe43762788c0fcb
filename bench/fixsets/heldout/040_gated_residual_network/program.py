import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedResidualNetwork(nn.Module):
    def __init__(self, d=10, hidden=16):
        super().__init__()
        self.fc1 = nn.Linear(d, hidden)
        self.fc2 = nn.Linear(hidden, d)
        self.gate = nn.Linear(d, d)

    def forward(self, x):
        h = self.fc2(F.elu(self.fc1(x)))
        g = torch.sigmoid(self.gate(x) * 3.0)
        g.data.clamp_(0.05, 0.95)  # keep the gate away from saturation
        return x + g * h


def main():
    torch.manual_seed(0)
    net = GatedResidualNetwork()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(32, 10)
    y = torch.roll(x, 1, dims=1)
    losses = []
    for _ in range(3):
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "grads": {n: p.grad.clone() for n, p in net.named_parameters()},
            "params": {n: p.detach().clone() for n, p in net.named_parameters()}}


if __name__ == "__main__":
    main()
