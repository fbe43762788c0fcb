import math

import torch
import torch.nn as nn


class MDN(nn.Module):
    """Mixture density network with K isotropic Gaussian components."""

    def __init__(self, d_in=3, k=4, hidden=24):
        super().__init__()
        self.k = k
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.Tanh())
        self.w_head = nn.Linear(hidden, k)
        self.mu_head = nn.Linear(hidden, k)
        self.logs_head = nn.Linear(hidden, k)

    def forward(self, x):
        h = self.body(x)
        w = torch.exp(self.w_head(h) - 3.0)
        w = w / w.sum(dim=-1, keepdim=True)
        return w, self.mu_head(h), self.logs_head(h).clamp(-5, 3)


def mdn_nll(w, mu, log_sigma, y):
    z = (y - mu) / log_sigma.exp()
    comp = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.log((w * comp.exp()).sum(-1) + 1e-12).mean()


def main():
    torch.manual_seed(0)
    model = MDN()
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    x = torch.randn(50, 3)
    y = torch.sin(x.sum(1, keepdim=True)) + 0.1 * torch.randn(50, 1)
    losses = []
    for _ in range(3):
        w, mu, ls = model(x)
        loss = mdn_nll(w, mu, ls, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "w": w.detach(), **{n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
