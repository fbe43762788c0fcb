import torch
import torch.nn as nn
import torch.nn.functional as F


class SkipGram(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.in_embed = nn.Embedding(vocab, dim)
        self.out_embed = nn.Embedding(vocab, dim)
        nn.init.uniform_(self.in_embed.weight, -0.5 / dim, 0.5 / dim)
        nn.init.uniform_(self.out_embed.weight, -0.5, 0.5)

    def forward(self, center, context, negatives):
        v = self.in_embed(center)                                   # (B, d)
        u_pos = self.out_embed(context)                             # (B, d)
        u_neg = self.out_embed.weight[negatives]                    # (B, K, d)
        pos = F.logsigmoid((v * u_pos).sum(-1))
        neg = F.logsigmoid(-(u_neg @ v.unsqueeze(-1)).squeeze(-1)).sum(-1)
        return -(pos + neg).mean()


def main():
    torch.manual_seed(0)
    V, d, B, K = 30, 6, 8, 4
    model = SkipGram(V, d)
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    center = torch.randint(0, V, (B,))
    context = (center + torch.randint(1, 3, (B,))) % V
    negatives = torch.randint(0, V, (B, K))

    loss = model(center, context, negatives)
    # second round of negatives: shift the sampled ids by one
    negatives.add_(1).remainder_(V)
    loss = loss + model(center, context, negatives)

    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "negatives": negatives,
            "in": model.in_embed.weight.detach().clone(), "out": model.out_embed.weight.detach().clone()}


if __name__ == "__main__":
    main()
