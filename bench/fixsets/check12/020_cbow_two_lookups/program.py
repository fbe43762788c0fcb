import torch
import torch.nn as nn
import torch.nn.functional as F


class CBOW(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.in_emb = nn.Embedding(vocab, dim, max_norm=1.0)
        self.out_emb = nn.Embedding(vocab, dim, max_norm=1.0)

    def forward(self, context, target, negatives):
        ctx = self.in_emb(context).mean(1)
        pos = self.out_emb(target)
        neg = self.out_emb(negatives)
        pos_score = F.logsigmoid((ctx * pos).sum(-1))
        neg_score = F.logsigmoid(-(neg @ ctx.unsqueeze(-1)).squeeze(-1)).sum(-1)
        return -(pos_score + neg_score).mean()


def main():
    torch.manual_seed(0)
    vocab = 30
    model = CBOW(vocab, 8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    context = torch.randint(0, vocab, (6, 4))
    target = torch.randint(0, vocab, (6,))
    negatives = torch.randint(0, vocab, (6, 5))
    for _ in range(3):
        opt.zero_grad()
        loss = model(context, target, negatives)
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
