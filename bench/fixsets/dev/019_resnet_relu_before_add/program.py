import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out += identity
        return out


class SmallResNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True))
        self.layer = nn.Sequential(BasicBlock(8), BasicBlock(8))
        self.fc = nn.Linear(8, n_classes)

    def forward(self, x):
        x = self.layer(self.stem(x))
        return self.fc(torch.flatten(nn.functional.adaptive_avg_pool2d(x, 1), 1))


def main():
    torch.manual_seed(0)
    model = SmallResNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(4, 3, 8, 8)
    y = torch.tensor([0, 1, 2, 0])
    losses = []
    for _ in range(2):
        loss = nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "fc.weight.grad": model.fc.weight.grad,
            "state": [t.detach().clone().float() for t in model.state_dict().values()]}


if __name__ == "__main__":
    main()
