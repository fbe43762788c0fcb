"""PANet-style text detector (backbone -> FPEM_FFM neck -> head) trained for a
few SGD steps on random maps; reduced from mmocr's PANet config.
"""
import torch
import torch.nn.functional as F
from torch import nn

from fpem_ffm import FPEM_FFM


class TinyBackbone(nn.Module):
    """Stands in for ResNet-18: four stages at strides 4, 8, 16, 32."""

    def __init__(self, channels=(8, 16, 16, 16)):
        super().__init__()
        stages = []
        in_c = 3
        for i, c in enumerate(channels):
            stride = 4 if i == 0 else 2
            stages.append(nn.Sequential(
                nn.Conv2d(in_c, c, 3, stride=stride, padding=1),
                nn.BatchNorm2d(c), nn.ReLU(inplace=True)))
            in_c = c
        self.stages = nn.ModuleList(stages)

    def forward(self, x):
        outs = []
        for stage in self.stages:
            x = stage(x)
            outs.append(x)
        return tuple(outs)


class PANHead(nn.Module):
    def __init__(self, in_channels, out_channels=6):
        super().__init__()
        self.out_conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, inputs):
        outputs = torch.cat(inputs, dim=1)
        return self.out_conv(outputs)


class PANet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = TinyBackbone()
        self.neck = FPEM_FFM(in_channels=[8, 16, 16, 16], conv_out=8)
        self.bbox_head = PANHead(in_channels=8 * 4)

    def forward(self, img):
        x = self.backbone(img)
        x = self.neck(x)
        return self.bbox_head(x)


def main():
    torch.manual_seed(0)
    model = PANet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    losses = []
    model.train()
    for _ in range(2):
        img = torch.randn(2, 3, 64, 64, generator=g)
        gt = (torch.rand(2, 6, 16, 16, generator=g) > 0.5).float()
        optimizer.zero_grad()
        preds = model(img)
        loss = F.binary_cross_entropy_with_logits(preds, gt)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {
        'losses': losses,
        'params': [p.detach().clone() for p in model.parameters()],
        'buffers': [b.detach().clone() for b in model.buffers()],
    }


if __name__ == "__main__":
    main()
