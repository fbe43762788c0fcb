import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.val = nn.Linear(d_in, d_out)
        self.gate = nn.Linear(d_in, d_out)

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        g.mul_(2.0)  # gate range (0, 2)
        return self.val(x) * g


def main():
    torch.manual_seed(0)
    net = nn.Sequential(GatedLinear(6, 12), nn.ReLU(), nn.Linear(12, 1))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.randn(10, 6)
    y = torch.randn(10, 1)
    loss = F.mse_loss(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in net.parameters()]}


if __name__ == "__main__":
    main()
