import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = out + identity
        return out


class SmallResNet(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer1 = nn.Sequential(BasicBlock(8), BasicBlock(8))
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        x = self.layer1(self.stem(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def main():
    torch.manual_seed(0)
    model = SmallResNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(4, 3, 8, 8)
    y = torch.tensor([0, 3, 1, 4])
    out = model(x)
    loss = F.cross_entropy(out, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"out": out.detach(), "loss": loss.item(),
            "state": {k: v.clone() for k, v in model.state_dict().items()}}


if __name__ == "__main__":
    main()
