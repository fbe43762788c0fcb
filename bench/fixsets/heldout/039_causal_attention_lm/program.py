import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, dim, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, pad_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.n_head, C // self.n_head).permute(2, 0, 3, 1, 4)
        att = q @ k.transpose(-2, -1)
        att.div_(math.sqrt(k.size(-1)))
        causal = torch.ones(T, T, dtype=torch.bool).triu_(1)
        att.masked_fill_(causal, float("-inf"))
        att[pad_mask[:, None, None, :].expand_as(att)] = float("-inf")
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)
        return self.proj(y)


class Model(nn.Module):
    def __init__(self, vocab=11, dim=12, n_head=2, max_len=8):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Parameter(torch.randn(max_len, dim) * 0.02)
        self.attn = CausalSelfAttention(dim, n_head)
        self.ln = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx, pad_mask):
        x = self.tok(idx)
        x.add_(self.pos[: idx.shape[1]])
        x = x + self.attn(self.ln(x), pad_mask)
        return self.head(x)


def main():
    torch.manual_seed(0)
    model = Model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    idx = torch.randint(1, 11, (3, 7))
    pad_mask = torch.zeros(3, 7, dtype=torch.bool)
    pad_mask[1, 5:] = True
    pad_mask[2, 3:] = True
    logits = model(idx[:, :-1], pad_mask[:, :-1])
    targets = idx[:, 1:].masked_fill(pad_mask[:, 1:], -100)
    loss = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "logits": logits.detach(),
            "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
