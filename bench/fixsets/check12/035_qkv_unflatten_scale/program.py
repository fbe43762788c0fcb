import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.dh = dim // heads
        self.scale = self.dh ** -0.5
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        B, N, C = x.shape
        qkv = self.qkv(x).unflatten(-1, (3, self.heads, self.dh)).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        q *= self.scale
        attn = (q @ k.transpose(-2, -1)).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(B, N, C)
        return self.proj(out)


def main():
    torch.manual_seed(0)
    block = Attention(16, 4)
    norm = nn.LayerNorm(16)
    opt = torch.optim.AdamW(list(block.parameters()) + list(norm.parameters()), lr=1e-3)
    x = torch.randn(2, 5, 16)
    target = torch.randn(2, 5, 16)
    for _ in range(2):
        out = x + block(norm(x))
        loss = F.mse_loss(out, target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in block.parameters()]}


if __name__ == "__main__":
    main()
