import torch
import torch.nn as nn
import torch.nn.functional as F


class TiedTagger(nn.Module):
    def __init__(self, vocab, dim, p=0.2):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim))
        self.ff = nn.Linear(dim, dim)
        self.drop = nn.Dropout(p)

    def forward(self, ids):
        x = F.embedding(ids, self.weight, max_norm=2.0)
        h = self.drop(F.gelu(self.ff(x)))
        return h @ self.weight.t()


def rdrop_loss(model, ids, labels, alpha=0.5):
    logits1 = model(ids)
    logits2 = model(ids)
    ce = F.cross_entropy(logits1.flatten(0, 1), labels.flatten()) + F.cross_entropy(logits2.flatten(0, 1), labels.flatten())
    lp1 = F.log_softmax(logits1, -1)
    lp2 = F.log_softmax(logits2, -1)
    kl = F.kl_div(lp1, lp2, log_target=True, reduction="batchmean") + F.kl_div(lp2, lp1, log_target=True, reduction="batchmean")
    return ce + alpha * kl / 2


def main():
    torch.manual_seed(0)
    model = TiedTagger(12, 8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    ids = torch.randint(0, 12, (3, 5))
    labels = torch.randint(0, 12, (3, 5))
    model.train()
    opt.zero_grad()
    loss = rdrop_loss(model, ids, labels)
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
