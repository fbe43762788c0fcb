import torch
import torch.nn as nn


def renorm_(w, eps=1e-6):
    return w / (w.sum(-1, keepdim=True) + eps)


class SigmoidAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)
        self.v = nn.Linear(d, d)

    def forward(self, x):
        scores = self.q(x) @ self.k(x).transpose(1, 2) / x.shape[-1] ** 0.5
        w = renorm_(torch.sigmoid(scores))
        return w @ self.v(x)


def main():
    torch.manual_seed(0)
    attn = SigmoidAttention(8)
    opt = torch.optim.Adam(attn.parameters(), lr=1e-3)
    x = torch.randn(2, 5, 8)
    loss = attn(x).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in attn.parameters()]}


if __name__ == "__main__":
    main()
