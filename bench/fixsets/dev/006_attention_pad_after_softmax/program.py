import math
import torch
import torch.nn as nn


class SelfAttention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.h = n_heads
        self.dk = d_model // n_heads
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, x, pad_mask):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.dk).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.dk)
        attn = scores.softmax(dim=-1)
        attn.masked_fill_(pad_mask[:, None, None, :], 0.0)
        ctx = (attn @ v).transpose(1, 2).reshape(B, T, D)
        return self.out(ctx)


def main():
    torch.manual_seed(0)
    layer = SelfAttention(8, 2)
    x = torch.randn(2, 5, 8)
    pad_mask = torch.tensor([[False, False, False, True, True],
                             [False, False, False, False, False]])
    y = layer(x, pad_mask)
    loss = y.pow(2).mean()
    loss.backward()
    return {
        "y": y.detach(),
        "loss": loss.detach(),
        "qkv.weight.grad": layer.qkv.weight.grad,
        "qkv.bias.grad": layer.qkv.bias.grad,
        "out.weight.grad": layer.out.weight.grad,
    }


if __name__ == "__main__":
    main()
