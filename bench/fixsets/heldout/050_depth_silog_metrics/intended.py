import torch
import torch.nn as nn
import torch.nn.functional as F

MIN_DEPTH, MAX_DEPTH = 0.6, 10.0


class DepthNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.head = nn.Conv2d(8, 1, 1)

    def forward(self, img):
        return F.softplus(self.head(self.enc(img))) + 1e-3


def silog_loss(pred, gt, lam=0.85):
    d = torch.log(pred) - torch.log(gt)
    return torch.sqrt((d ** 2).mean() - lam * d.mean() ** 2) * 10.0


def main():
    torch.manual_seed(0)
    net = DepthNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    img = torch.randn(2, 3, 8, 8)
    gt = torch.rand(2, 1, 8, 8) * 2.5 + 0.5

    pred = net(img)
    loss = silog_loss(pred, gt)

    # evaluation metrics on the valid depth range
    pred = pred.clamp(MIN_DEPTH, MAX_DEPTH)
    abs_rel = ((pred - gt).abs() / gt).mean()
    delta1 = (torch.max(pred / gt, gt / pred) < 1.25).float().mean()

    opt.zero_grad()
    loss.backward()
    opt.step()

    return {
        "loss": loss.item(),
        "abs_rel": abs_rel.item(),
        "delta1": delta1.item(),
        "pred": pred.detach(),
        "params": [p.detach().clone() for p in net.parameters()],
    }


if __name__ == "__main__":
    main()
