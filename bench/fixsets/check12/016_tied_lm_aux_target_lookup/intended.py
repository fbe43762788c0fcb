import torch
import torch.nn as nn
import torch.nn.functional as F


class TiedLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, max_norm=1.0)
        self.mix = nn.Linear(dim, dim)

    def forward(self, ids):
        h = torch.tanh(self.mix(self.emb(ids)))
        return h, h @ self.emb.weight.clone().t()


def train_step(model, opt, ids, targets, aux_weight=0.1):
    opt.zero_grad()
    h, logits = model(ids)
    ce = F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))
    # pull the hidden state towards the embedding of the next token
    tgt = model.emb(targets)
    aux = (1 - F.cosine_similarity(h, tgt, dim=-1)).mean()
    loss = ce + aux_weight * aux
    loss.backward()
    opt.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = TiedLM(20, 8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    seq = torch.randint(0, 20, (4, 7))
    losses = [train_step(model, opt, seq[:, :-1], seq[:, 1:]) for _ in range(2)]
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
