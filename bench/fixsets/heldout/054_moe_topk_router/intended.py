import torch
import torch.nn as nn
import torch.nn.functional as F


def masked_softmax(scores, mask):
    scores = scores.masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-1)


class TopKRouter(nn.Module):
    def __init__(self, d_model, n_experts, k=2):
        super().__init__()
        self.gate = nn.Linear(d_model, n_experts, bias=False)
        self.k = k

    def forward(self, x):
        logits = self.gate(x)
        z_loss = torch.logsumexp(logits, dim=-1).pow(2).mean()
        topk = logits.topk(self.k, dim=-1).indices
        mask = torch.zeros_like(logits, dtype=torch.bool).scatter_(1, topk, True)
        probs = masked_softmax(logits, mask)
        return probs, z_loss


class MoE(nn.Module):
    def __init__(self, d_model=8, n_experts=4):
        super().__init__()
        self.router = TopKRouter(d_model, n_experts)
        self.experts = nn.ModuleList([nn.Linear(d_model, d_model) for _ in range(n_experts)])

    def forward(self, x):
        probs, z_loss = self.router(x)
        outs = torch.stack([e(x) for e in self.experts], dim=1)  # (N, E, d)
        y = (probs.unsqueeze(-1) * outs).sum(1)
        importance = probs.mean(0)
        aux = (importance * importance).sum() * probs.shape[1]
        return y, z_loss, aux


def main():
    torch.manual_seed(0)
    moe = MoE()
    opt = torch.optim.Adam(moe.parameters(), lr=1e-3)
    x = torch.randn(20, 8)
    target = torch.randn(20, 8)
    y, z_loss, aux = moe(x)
    loss = F.mse_loss(y, target) + 1e-3 * z_loss + 1e-2 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"y": y.detach(), "z_loss": z_loss.item(), "aux": aux.item(), "loss": loss.item(),
            "params": {k: v.detach().clone() for k, v in moe.named_parameters()}}


if __name__ == "__main__":
    main()
