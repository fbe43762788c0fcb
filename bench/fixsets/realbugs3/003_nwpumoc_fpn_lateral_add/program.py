import torch
import torch.nn as nn

from fpn_head import FPN


class CountingHead(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.neck = FPN(in_channels, 4, len(in_channels))
        self.density = nn.Conv2d(4, 1, 1)

    def forward(self, feats):
        outs = self.neck(feats)
        return self.density(outs[0])


def main():
    torch.manual_seed(0)
    in_channels = [3, 5, 6]
    net = CountingHead(in_channels)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
    feats = [torch.randn(2, c, s, s) for c, s in zip(in_channels, [8, 4, 2])]
    target = torch.rand(2, 1, 8, 8)
    pred = net(feats)
    loss = ((pred - target) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"pred": pred.detach(), "loss": loss.item()}
    for n, p in net.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
