import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyUNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.enc1 = nn.Conv2d(1, c, 3, padding=1)
        self.enc2 = nn.Conv2d(c, 2 * c, 3, padding=1)
        self.up = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.dec = nn.Conv2d(c, c, 3, padding=1)
        self.out = nn.Conv2d(c, 1, 1)

    def forward(self, x):
        e1 = F.relu(self.enc1(x))
        e2 = F.relu(self.enc2(F.max_pool2d(e1, 2)))
        skip = e1
        skip = skip + self.up(e2)
        d = F.relu(self.dec(skip))
        return self.out(d)


def dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum(dim=(1, 2, 3))
    union = p.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3))
    return (1 - (2 * inter + eps) / (union + eps)).mean()


def main():
    torch.manual_seed(0)
    net = TinyUNet()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    img = torch.randn(2, 1, 8, 8)
    mask = (torch.rand(2, 1, 8, 8) > 0.6).float()
    logs = []
    for _ in range(2):
        logits = net(img)
        loss = F.binary_cross_entropy_with_logits(logits, mask) + dice_loss(logits, mask)
        opt.zero_grad()
        loss.backward()
        opt.step()
        logs.append(loss.item())
    return {"logs": logs, "weights": {n: p.detach().clone() for n, p in net.named_parameters()}}


if __name__ == "__main__":
    main()
