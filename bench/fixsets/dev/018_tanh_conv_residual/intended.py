import torch
import torch.nn as nn


class TanhResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.conv1 = nn.Conv2d(ch, ch, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(ch)
        self.act = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(ch, ch, 3, padding=1)

    def forward(self, x):
        identity = x
        out = self.act(self.bn1(self.conv1(x)))
        out = torch.tanh(self.conv2(out))
        out = out + identity
        return out


def main():
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), TanhResBlock(4), TanhResBlock(4),
                        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 3))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(4, 1, 6, 6)
    y = torch.tensor([0, 1, 2, 1])
    loss = nn.functional.cross_entropy(net(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "stem.grad": net[0].weight.grad,
        "state": [t.detach().clone() for t in net.state_dict().values()],
    }


if __name__ == "__main__":
    main()
