import torch
import torch.nn as nn


def taylor_features(x):
    x2 = x * x
    x3 = x2 * x
    x2 /= 2.0
    x3 /= 6.0
    return torch.cat([x, x2, x3], dim=-1)


class TaylorNet(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.embed = nn.Linear(d_in, 4)
        self.head = nn.Linear(12, d_out)

    def forward(self, x):
        return self.head(taylor_features(self.embed(x)))


def main():
    torch.manual_seed(0)
    net = TaylorNet(3, 1)
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    x = torch.randn(16, 3)
    y = torch.sin(x).sum(dim=1, keepdim=True)
    for _ in range(2):
        loss = ((net(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "loss": loss.detach(),
        "embed.weight": net.embed.weight.detach().clone(),
        "embed.weight.grad": net.embed.weight.grad,
        "head.weight.grad": net.head.weight.grad,
    }


if __name__ == "__main__":
    main()
