import torch
import torch.nn as nn
import torch.nn.functional as F


def attention(q, k, v, key_padding_mask):
    d = q.size(-1)
    scores = torch.einsum("bqd,bkd->bqk", q, k) / d ** 0.5
    weights = F.softmax(scores, dim=-1)
    weights.masked_fill_(key_padding_mask[:, None, :], 0.0)
    return torch.einsum("bqk,bkd->bqd", weights, v), weights


class Encoder(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=0)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.cls = nn.Linear(dim, 2)

    def forward(self, tokens):
        pad = tokens.eq(0)
        h = self.embed(tokens)
        ctx, w = attention(self.q(h), self.k(h), self.v(h), pad)
        keep = (~pad).unsqueeze(-1).float()
        pooled = (ctx * keep).sum(1) / keep.sum(1)
        return self.cls(pooled), w


def main():
    torch.manual_seed(0)
    tokens = torch.tensor([[5, 3, 9, 2, 0, 0], [7, 1, 4, 0, 0, 0], [2, 2, 8, 6, 3, 1]])
    labels = torch.tensor([1, 0, 1])
    model = Encoder(vocab=10, dim=8)
    logits, w = model(tokens)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    out = {"logits": logits.detach(), "weights": w.detach(), "loss": loss.item()}
    out.update({"grad/" + n: p.grad for n, p in model.named_parameters()})
    return out


if __name__ == "__main__":
    main()
