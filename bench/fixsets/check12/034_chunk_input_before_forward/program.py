import torch
import torch.nn as nn
import torch.nn.functional as F


def two_view_batch(x, noise=0.1):
    view1, view2 = x.clone().chunk(2, dim=0)
    view1.add_(noise * torch.randn_like(view1))
    view2.mul_(0.9).clamp_(-2.0, 2.0)
    return view1, view2


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    x = torch.randn(12, 5)
    y = torch.randint(0, 2, (6,))
    for _ in range(2):
        v1, v2 = two_view_batch(x)
        loss = F.cross_entropy(net(v1), y) + F.cross_entropy(net(v2), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in net.parameters()]}


if __name__ == "__main__":
    main()
