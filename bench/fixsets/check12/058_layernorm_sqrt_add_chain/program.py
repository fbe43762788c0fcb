import torch
import torch.nn as nn
import torch.nn.functional as F


class MyLayerNorm(nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.eps = eps

    def forward(self, x):
        mu = x.mean(-1, keepdim=True)
        std = x.var(-1, keepdim=True, unbiased=False).sqrt_().add_(self.eps)
        return (x - mu) / std * self.weight + self.bias


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 12), MyLayerNorm(12), nn.GELU(), nn.Linear(12, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x = torch.randn(9, 6)
    y = torch.randint(0, 2, (9,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
