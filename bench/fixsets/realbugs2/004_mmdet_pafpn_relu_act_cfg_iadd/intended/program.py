"""mmdetection PAFPN (open-mmlab/mmdetection PR #9450): with the neck config
act_cfg=dict(type='ReLU'), every lateral/fpn ConvModule ends in a ReLU whose output
ReluBackward saves; the top-down `laterals[i - 1] += ...` and bottom-up
`inter_outs[i + 1] += ...` then overwrite those saved outputs."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from fpn import PAFPN

model_cfg = dict(
    backbone=dict(in_channels=3, stage_channels=[4, 8, 16, 32]),
    neck=dict(type='PAFPN', in_channels=[4, 8, 16, 32], out_channels=8, num_outs=5,
              act_cfg=dict(type='ReLU')),
)


class TinyBackbone(nn.Module):
    def __init__(self, in_channels, stage_channels):
        super().__init__()
        layers, c = [], in_channels
        for oc in stage_channels:
            layers.append(nn.Sequential(nn.Conv2d(c, oc, 3, stride=2, padding=1),
                                        nn.BatchNorm2d(oc), nn.ReLU(inplace=True)))
            c = oc
        self.stages = nn.ModuleList(layers)

    def forward(self, x):
        outs = []
        for stage in self.stages:
            x = stage(x)
            outs.append(x)
        return tuple(outs)


class Detector(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = TinyBackbone(**cfg['backbone'])
        neck_cfg = dict(cfg['neck'])
        assert neck_cfg.pop('type') == 'PAFPN'
        self.neck = PAFPN(**neck_cfg)
        self.cls_head = nn.Conv2d(neck_cfg['out_channels'], 2, 1)

    def forward_train(self, img, gt):
        feats = self.neck(self.backbone(img))
        losses = []
        for f in feats:
            logits = self.cls_head(f)
            target = F.adaptive_avg_pool2d(gt, f.shape[2:])
            losses.append(F.binary_cross_entropy_with_logits(logits, target))
        return sum(losses)


def main():
    torch.manual_seed(0)
    model = Detector(model_cfg)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    img = torch.randn(2, 3, 32, 32)
    gt = (torch.rand(2, 2, 32, 32) > 0.5).float()
    losses = []
    for it in range(2):
        optimizer.zero_grad()
        loss = model.forward_train(img, gt)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
