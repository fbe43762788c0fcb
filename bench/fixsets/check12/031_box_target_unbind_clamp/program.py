import torch
import torch.nn as nn
import torch.nn.functional as F


def box_loss(pred, target, img_size):
    reg = F.smooth_l1_loss(pred, target)
    x0, y0, x1, y1 = target.unbind(-1)
    x1.clamp_(max=img_size)
    y1.clamp_(max=img_size)
    area = (x1 - x0).clamp(min=0) * (y1 - y0).clamp(min=0)
    return reg, area


def main():
    torch.manual_seed(0)
    regressor = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(regressor.parameters(), lr=0.01)
    feats = torch.randn(8, 12)
    xy0 = torch.rand(8, 2) * 20
    target = torch.cat([xy0, xy0 + torch.rand(8, 2) * 20], dim=1)
    pred = regressor(feats)
    reg, area = box_loss(pred, target, img_size=32.0)
    opt.zero_grad()
    reg.backward()
    opt.step()
    return {"loss": reg.detach(), "area": area, "params": [p.detach().clone() for p in regressor.parameters()]}


if __name__ == "__main__":
    main()
