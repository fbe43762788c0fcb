"""EfficientDet-PyTorch (tristandb): one training step of a BiFPN neck with a small
regression head. BiFPNBlock normalises its fusion weights in place after a ReLU."""
import torch
import torch.nn as nn

from bifpn import BiFPN


class EfficientDetLite(nn.Module):
    def __init__(self, feature_size=8):
        super().__init__()
        self.backbone = nn.ModuleList([
            nn.Conv2d(3, 4, 3, stride=2, padding=1),
            nn.Conv2d(4, 6, 3, stride=2, padding=1),
            nn.Conv2d(6, 8, 3, stride=2, padding=1),
        ])
        self.neck = BiFPN([4, 6, 8], feature_size=feature_size, num_layers=2)
        self.head = nn.Conv2d(feature_size, 4, 1)

    def forward(self, img):
        feats = []
        x = img
        for conv in self.backbone:
            x = torch.relu(conv(x))
            feats.append(x)
        c3, c4, c5 = feats
        features = self.neck([c3, c4, c5])
        return [self.head(f) for f in features]


def main():
    torch.manual_seed(0)
    model = EfficientDetLite()
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        img = torch.randn(2, 3, 32, 32)
        outs = model(img)
        targets = [torch.randn_like(o) for o in outs]
        loss = sum(torch.nn.functional.smooth_l1_loss(o, t) for o, t in zip(outs, targets))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {'losses': losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    for name, b in model.named_buffers():
        out['buffer.' + name] = b.detach().clone()
    return out


if __name__ == "__main__":
    main()
