import torch
import torch.nn as nn
import torch.nn.functional as F


class WNLinear(nn.Module):
    """Linear layer with weight normalisation (Salimans & Kingma), w = g * v / ||v||."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.v = nn.Parameter(torch.randn(d_out, d_in) * 0.1)
        self.g = nn.Parameter(torch.ones(d_out))
        self.b = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        w = self.v.view(self.v.size(0), -1)
        w = w / w.norm(dim=1, keepdim=True)
        return F.linear(x, w * self.g[:, None], self.b)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = WNLinear(10, 20)
        self.l2 = WNLinear(20, 4)

    def forward(self, x):
        return self.l2(F.elu(self.l1(x)))


def main():
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    x = torch.randn(16, 10)
    y = torch.randint(0, 4, (16,))
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, **{k: v.detach().clone() for k, v in net.named_parameters()}}


if __name__ == "__main__":
    main()
