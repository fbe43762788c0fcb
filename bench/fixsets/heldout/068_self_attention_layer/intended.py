import math

import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-2, -1) * self.scale
        # numerically stable softmax, written out
        scores -= scores.max(dim=-1, keepdim=True).values
        attn = scores.exp()
        attn = attn / attn.sum(dim=-1, keepdim=True)
        return self.out(attn @ v), attn


def main():
    torch.manual_seed(0)
    layer = SelfAttention(8)
    x = torch.randn(2, 5, 8)
    target = torch.randn(2, 5, 8)
    y, attn = layer(x)
    loss = ((y - target) ** 2).mean()
    loss.backward()
    result = {"y": y.detach(), "attn": attn.detach(), "loss": loss.item()}
    for name, p in layer.named_parameters():
        result["grad." + name] = p.grad
    return result


if __name__ == "__main__":
    main()
