# One training step of a small detector neck: a toy backbone of strided conv stages, mmdetection's
# FPN (fpn.py: top-down `laterals[i - 1] += F.interpolate(...)`), and a shared objectness head.
import torch
import torch.nn as nn
import torch.nn.functional as F

from fpn import FPN


class TinyBackbone(nn.Module):
    def __init__(self, channels=(4, 8, 16)):
        super().__init__()
        stages, c_in = [], 3
        for c in channels:
            stages.append(nn.Sequential(nn.Conv2d(c_in, c, 3, stride=2, padding=1),
                                        nn.BatchNorm2d(c), nn.ReLU(inplace=True)))
            c_in = c
        self.stages = nn.ModuleList(stages)

    def forward(self, x):
        outs = []
        for stage in self.stages:
            x = stage(x)
            outs.append(x)
        return tuple(outs)


class Detector(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyBackbone()
        self.neck = FPN(in_channels=[4, 8, 16], out_channels=8, num_outs=4)
        self.cls_head = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, img):
        feats = self.neck(self.backbone(img))
        return [self.cls_head(f) for f in feats]


def main():
    torch.manual_seed(0)
    model = Detector()
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)

    img = torch.randn(2, 3, 20, 28)      # odd sizes: 10x14, 5x7, 3x4 levels
    cls_scores = model(img)
    targets = [(torch.rand_like(s) > 0.8).float() for s in cls_scores]
    loss = sum(F.binary_cross_entropy_with_logits(s, t) for s, t in zip(cls_scores, targets))
    opt.zero_grad()
    loss.backward()
    out = {"cls_scores": [s.detach() for s in cls_scores], "loss": loss.detach()}
    for n, p in model.named_parameters():
        out["grad_" + n] = p.grad.clone()
    opt.step()
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    for n, b in model.named_buffers():
        out[n] = b.clone()
    return out


if __name__ == "__main__":
    main()
