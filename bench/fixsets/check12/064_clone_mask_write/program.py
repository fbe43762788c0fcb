import torch
import torch.nn as nn
import torch.nn.functional as F


def masked_token_loss(logits, targets, ignore_mask):
    logp = F.log_softmax(logits, dim=-1)
    nll = -logp.gather(-1, targets[..., None]).squeeze(-1)
    nll = nll.clone()
    nll[ignore_mask] = 0.0
    return nll.sum() / (~ignore_mask).sum()


class Tagger(nn.Module):
    def __init__(self, vocab, d, n_tags):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.gate = nn.Linear(d, d)
        self.out = nn.Linear(d, n_tags)

    def forward(self, ids):
        e = self.emb(ids)
        g = torch.sigmoid(self.gate(e))
        g = g.clone()
        g[ids == 0] = 0.0
        return self.out(e * g)


def main():
    torch.manual_seed(0)
    model = Tagger(20, 8, 5)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    ids = torch.randint(1, 20, (4, 6))
    ids[0, 4:] = 0
    ids[2, 5:] = 0
    tags = torch.randint(0, 5, (4, 6))
    for _ in range(2):
        loss = masked_token_loss(model(ids), tags, ids == 0)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
