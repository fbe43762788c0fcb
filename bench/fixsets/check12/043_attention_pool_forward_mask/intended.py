import torch
import torch.nn as nn
import torch.nn.functional as F


class AttentionPool(nn.Module):
    def __init__(self, d, n_cls):
        super().__init__()
        self.score = nn.Linear(d, 1)
        self.out = nn.Linear(d, n_cls)

    def forward(self, x, pad_mask):
        att = torch.softmax(self.score(x).squeeze(-1).masked_fill(pad_mask, -1e9), dim=1)
        pooled = (att.unsqueeze(-1) * x).sum(1)
        att = att.masked_fill(pad_mask, 0.0)  # exact zeros on padding in the returned map
        return self.out(pooled), att


def main():
    torch.manual_seed(0)
    model = AttentionPool(8, 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(5, 7, 8)
    lengths = torch.tensor([7, 5, 3, 6, 2])
    pad_mask = torch.arange(7)[None, :] >= lengths[:, None]
    y = torch.randint(0, 3, (5,))
    for _ in range(2):
        logits, att = model(x, pad_mask)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "att": att.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
