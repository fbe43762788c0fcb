import torch
import torch.nn as nn


class YoloHead(nn.Module):
    def __init__(self, c_in, n_cls=2):
        super().__init__()
        self.register_buffer("anchors", torch.tensor([[1.0, 1.5], [2.0, 2.0], [3.0, 1.0]]))
        self.na = self.anchors.shape[0]
        self.no = 5 + n_cls
        self.conv = nn.Conv2d(c_in, self.na * self.no, 1)

    def forward(self, feat):
        b, _, h, w = feat.shape
        p = self.conv(feat).view(b, self.na, self.no, h, w).permute(0, 1, 3, 4, 2)
        y = p.sigmoid()
        xy = y[..., 0:2]
        wh = y[..., 2:4]
        xy.mul_(2.0).sub_(0.5)
        wh.mul_(2.0).pow_(2).mul_(self.anchors[None, :, None, None, :])
        return y


def main():
    torch.manual_seed(0)
    backbone = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.BatchNorm2d(16), nn.SiLU())
    head = YoloHead(16)
    params = list(backbone.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.01, momentum=0.937, nesterov=True)

    imgs = torch.randn(2, 3, 8, 8)
    target = torch.rand(2, 3, 4, 4, 7)
    target[..., 2:4] *= 4.0

    pred = head(backbone(imgs))
    box_loss = (pred[..., :4] - target[..., :4]).pow(2).mean()
    obj_loss = nn.functional.binary_cross_entropy(pred[..., 4:], target[..., 4:])
    loss = box_loss + obj_loss
    opt.zero_grad()
    loss.backward()
    opt.step()

    return {
        "pred": pred.detach(),
        "loss": loss.item(),
        "backbone": {k: v.clone() for k, v in backbone.state_dict().items()},
        "head": {k: v.clone() for k, v in head.state_dict().items()},
    }


if __name__ == "__main__":
    main()
