import torch
import torch.nn as nn


class MaskedMLP(nn.Module):
    def __init__(self, width, depth, p=0.2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(width, width) for _ in range(depth))
        self.p = p

    def forward(self, x):
        mask = torch.empty(x.shape[0], self.layers[0].out_features)
        h = x
        for layer in self.layers:
            torch.ge(torch.rand(mask.shape), self.p, out=mask)
            h = torch.relu(layer(h)) * mask / (1 - self.p)
        return h


def main():
    torch.manual_seed(0)
    net = MaskedMLP(6, 3)
    x = torch.randn(5, 6)
    out = net(x)
    loss = out.sum()
    loss.backward()
    return {"out": out.detach(), "grads": [p.grad for p in net.parameters()]}


if __name__ == "__main__":
    main()
