import torch
import torch.nn as nn
import torch.nn.functional as F


class SEConvNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1)
        self.se_fc = nn.Linear(8, 8)
        self.ln = nn.LayerNorm(16)
        self.fc = nn.Linear(16, n_classes)

    def forward(self, x):
        x = F.relu(self.conv1(x), inplace=True)
        x = F.max_pool2d(x, 2)
        x.mul_(2.0)
        feat = self.conv2(x)
        gate = torch.sigmoid_(self.se_fc(feat.mean(dim=(2, 3))))
        feat = feat * gate[:, :, None, None]
        pooled = torch.cat([feat.mean(dim=(2, 3)), feat.amax(dim=(2, 3))], dim=1).relu_()
        h = F.layer_norm(pooled, (16,), self.ln.weight, self.ln.bias)
        h.add_(0.1)
        return self.fc(h)


def main():
    torch.manual_seed(0)
    net = SEConvNet()
    opt = torch.optim.Adagrad(net.parameters(), lr=0.05)
    x = torch.randn(5, 1, 8, 8)
    y = torch.tensor([0, 2, 1, 1, 0])
    losses = []
    for _ in range(2):
        loss = F.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": {n: p.detach().clone() for n, p in net.named_parameters()}}


if __name__ == "__main__":
    main()
