import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class CachedSelfAttention(nn.Module):
    def __init__(self, dim, max_len, batch):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.register_buffer("k_cache", torch.zeros(batch, max_len, dim))
        self.register_buffer("v_cache", torch.zeros(batch, max_len, dim))

    def forward(self, x_t, pos):  # x_t: (B, dim)
        self.k_cache[:, pos] = self.k(x_t)
        self.v_cache[:, pos] = self.v(x_t)
        keys = self.k_cache[:, :pos + 1].clone()
        values = self.v_cache[:, :pos + 1].clone()
        q = self.q(x_t).unsqueeze(1)
        att = F.softmax(q @ keys.transpose(1, 2) / math.sqrt(q.shape[-1]), dim=-1)
        return (att @ values).squeeze(1)


def main():
    torch.manual_seed(0)
    B, T, D = 2, 5, 8
    attn = CachedSelfAttention(D, max_len=T, batch=B)
    proj = nn.Linear(D, D)
    emb = nn.Embedding(10, D)
    tokens = torch.randint(0, 10, (B, T + 1))
    outs = []
    for pos in range(T):
        outs.append(proj(attn(emb(tokens[:, pos]), pos)))
    logits = torch.stack(outs, 1) @ emb.weight.t()
    loss = F.cross_entropy(logits.reshape(-1, 10), tokens[:, 1:].reshape(-1))
    loss.backward()
    grads = {"attn." + n: p.grad for n, p in attn.named_parameters()}
    grads.update({"proj." + n: p.grad for n, p in proj.named_parameters()})
    grads["emb.weight"] = emb.weight.grad
    return {"loss": loss.item(), "logits": logits.detach(), "grads": grads,
            "k_cache": attn.k_cache.detach().clone(), "v_cache": attn.v_cache.detach().clone()}


if __name__ == "__main__":
    main()
