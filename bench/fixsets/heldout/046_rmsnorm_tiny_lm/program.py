import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        rms = x.pow(2).mean(-1, keepdim=True).sqrt()
        rms.add_(self.eps)
        return x / rms * self.weight


class TinyLM(nn.Module):
    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.norm1 = RMSNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, dim))
        self.norm2 = RMSNorm(dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        nn.init.normal_(self.tok.weight, std=0.02)

    def forward(self, idx):
        h = self.tok(idx)
        h = h + self.ff(self.norm1(h))
        return self.head(self.norm2(h))


def main():
    torch.manual_seed(0)
    model = TinyLM()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    data = torch.randint(0, 20, (4, 9))
    inp, tgt = data[:, :-1], data[:, 1:]
    losses = []
    for _ in range(3):
        logits = model(inp)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tgt.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": {k: v.detach().clone() for k, v in model.named_parameters()}}


if __name__ == "__main__":
    main()
