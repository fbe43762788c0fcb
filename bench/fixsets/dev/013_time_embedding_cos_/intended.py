import torch
import torch.nn as nn


class LearnedTimeEmbedding(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.freqs = nn.Parameter(torch.exp(-torch.arange(dim // 2) * 0.7))
        self.proj = nn.Linear(dim, dim)

    def forward(self, t):
        phase = t[:, None] * self.freqs[None, :]
        emb = torch.cat([phase.sin(), phase.cos()], dim=-1)
        return self.proj(emb)


def main():
    torch.manual_seed(0)
    emb = LearnedTimeEmbedding(8)
    t = torch.tensor([0.0, 1.0, 5.0, 20.0])
    target = torch.randn(4, 8)
    out = emb(t)
    loss = nn.functional.mse_loss(out, target)
    loss.backward()
    return {"out": out.detach(), "loss": loss.detach(), "freqs.grad": emb.freqs.grad,
            "proj.weight.grad": emb.proj.weight.grad}


if __name__ == "__main__":
    main()
