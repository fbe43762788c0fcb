import torch
import torch.nn as nn
import torch.nn.functional as F


class CoverageAttention(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.W_h = nn.Linear(hidden, hidden, bias=False)
        self.W_s = nn.Linear(hidden, hidden)
        self.w_c = nn.Parameter(torch.randn(hidden) * 0.1)
        self.v = nn.Linear(hidden, 1, bias=False)

    def forward(self, enc, s, coverage):
        feat = self.W_h(enc) + self.W_s(s).unsqueeze(1) + coverage.unsqueeze(-1) * self.w_c
        scores = self.v(torch.tanh(feat)).squeeze(-1)
        attn = F.softmax(scores, dim=-1)
        context = torch.bmm(attn.unsqueeze(1), enc).squeeze(1)
        return context, attn


def main():
    torch.manual_seed(0)
    B, S, H, T = 2, 7, 8, 4
    enc = torch.randn(B, S, H)
    attn_mod = CoverageAttention(H)
    cell = nn.GRUCell(H, H)
    out = nn.Linear(2 * H, 5)
    params = list(attn_mod.parameters()) + list(cell.parameters()) + list(out.parameters())
    targets = torch.randint(0, 5, (B, T))

    s = enc.mean(1)
    coverage = torch.zeros(B, S)
    nll, cov_loss = 0.0, 0.0
    for t in range(T):
        context, attn = attn_mod(enc, s, coverage)
        cov_loss = cov_loss + torch.min(attn, coverage).sum(1).mean()
        coverage = coverage + attn
        logits = out(torch.cat([s, context], dim=1))
        nll = nll + F.cross_entropy(logits, targets[:, t])
        s = cell(context, s)
    loss = (nll + cov_loss) / T
    loss.backward()
    return {"loss": loss.item(), "coverage": coverage.detach(), "grads": [p.grad for p in params]}


if __name__ == "__main__":
    main()
