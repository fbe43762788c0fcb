import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(c)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(c)

    def forward(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity
        return self.relu(out)


def main():
    torch.manual_seed(0)
    stem = nn.Conv2d(3, 4, 3, padding=1)
    block = BasicBlock(4)
    head = nn.Linear(4, 3)
    params = list(stem.parameters()) + list(block.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=5e-4)
    x = torch.randn(4, 3, 8, 8)
    y = torch.randint(0, 3, (4,))
    for _ in range(2):
        feats = block(stem(x)).mean((2, 3))
        loss = F.cross_entropy(head(feats), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "loss": loss.detach(),
        "params": [p.detach().clone() for p in params],
        "running_var": block.bn1.running_var.clone(),
    }


if __name__ == "__main__":
    main()
