import torch
import torch.nn as nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rms = x.pow(2).mean(dim=-1, keepdim=True).sqrt()
        rms = rms + self.eps
        return x / rms * self.weight


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = RMSNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 2 * dim), nn.SiLU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), Block(8), Block(8), nn.Linear(8, 2))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    x = torch.randn(12, 6)
    y = torch.randn(12, 2)
    loss = nn.functional.smooth_l1_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "norm1.weight.grad": model[1].norm.weight.grad,
        "norm2.weight": model[2].norm.weight.detach().clone(),
        "in.weight.grad": model[0].weight.grad,
        "params": [p.detach().clone() for p in model.parameters()],
    }


if __name__ == "__main__":
    main()
