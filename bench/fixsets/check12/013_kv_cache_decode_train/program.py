import torch
import torch.nn as nn
import torch.nn.functional as F


class CachedSelfAttention(nn.Module):
    def __init__(self, dim, max_len, batch):
        super().__init__()
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.scale = dim ** -0.5
        self.k_cache = torch.zeros(batch, max_len, dim)
        self.v_cache = torch.zeros(batch, max_len, dim)

    def forward(self, x_t, pos):
        self.k_cache[:, pos] = self.k(x_t)
        self.v_cache[:, pos] = self.v(x_t)
        q = self.q(x_t).unsqueeze(1)
        keys = self.k_cache[:, : pos + 1]
        vals = self.v_cache[:, : pos + 1]
        att = torch.softmax(q @ keys.transpose(1, 2) * self.scale, dim=-1)
        return (att @ vals).squeeze(1)


class TinyDecoder(nn.Module):
    def __init__(self, vocab, dim, max_len, batch):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.attn = CachedSelfAttention(dim, max_len, batch)
        self.out = nn.Linear(dim, vocab)

    def forward(self, tok, pos):
        return self.out(self.attn(self.emb(tok), pos))


def main():
    torch.manual_seed(0)
    vocab, dim, T, B = 9, 16, 5, 3
    model = TinyDecoder(vocab, dim, T, B)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    seq = torch.randint(0, vocab, (B, T + 1))
    loss = 0.0
    for pos in range(T):
        logits = model(seq[:, pos], pos)
        loss = loss + F.cross_entropy(logits, seq[:, pos + 1])
    opt.zero_grad()
    (loss / T).backward()
    opt.step()
    return {"loss": (loss / T).detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
