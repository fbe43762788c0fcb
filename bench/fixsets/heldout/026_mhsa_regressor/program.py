import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, d_model, n_heads, attn_pdrop=0.1):
        super().__init__()
        assert d_model % n_heads == 0
        self.h = n_heads
        self.d_k = d_model // n_heads
        self.c_attn = nn.Linear(d_model, 3 * d_model)
        self.c_proj = nn.Linear(d_model, d_model)
        self.attn_pdrop = attn_pdrop

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(C, dim=2)
        q = q.view(B, T, self.h, self.d_k).transpose(1, 2)
        k = k.view(B, T, self.h, self.d_k).transpose(1, 2)
        v = v.view(B, T, self.h, self.d_k).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.d_k))
        att = F.softmax(att, dim=-1)
        att = F.dropout(att, p=self.attn_pdrop, training=self.training, inplace=True)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
        return self.c_proj(y)


def main():
    torch.manual_seed(0)
    mhsa = MultiHeadSelfAttention(d_model=12, n_heads=3)
    regressor = nn.Linear(12, 1)
    x = torch.randn(2, 6, 12)
    y = torch.randn(2, 1)
    mhsa.train()
    pred = regressor(mhsa(x).mean(dim=1))
    loss = F.mse_loss(pred, y)
    loss.backward()
    grads = {"mhsa." + n: p.grad for n, p in mhsa.named_parameters()}
    grads.update({"reg." + n: p.grad for n, p in regressor.named_parameters()})
    return {"pred": pred.detach(), "loss": loss.item(), "grads": grads}


if __name__ == "__main__":
    main()
