import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        B, T, D = x.shape
        q, k, v = self.qkv(x).split(D, dim=2)
        q = q.view(B, T, self.n_heads, -1).transpose(1, 2)
        k = k.view(B, T, self.n_heads, -1).transpose(1, 2)
        v = v.view(B, T, self.n_heads, -1).transpose(1, 2)
        att = q @ k.transpose(-2, -1)
        att.div_(math.sqrt(k.shape[-1]))
        causal = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
        att.masked_fill_(causal, float("-inf"))
        att -= att.max(dim=-1, keepdim=True).values
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(B, T, D)
        return self.proj(y)


class Block(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = CausalSelfAttention(d, n_heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        h = self.mlp(self.ln2(x))
        h += x
        return h


def main():
    torch.manual_seed(0)
    vocab, d = 11, 8
    emb = nn.Embedding(vocab, d)
    blocks = nn.Sequential(Block(d, 2), Block(d, 2))
    head = nn.Linear(d, vocab)
    params = list(emb.parameters()) + list(blocks.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.01)
    tokens = torch.randint(0, vocab, (3, 7))
    losses = []
    for _ in range(3):
        logits = head(blocks(emb(tokens[:, :-1])))
        loss = F.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in params]}


if __name__ == "__main__":
    main()
