import torch
import torch.nn as nn
import torch.nn.functional as F


class GaussianHead(nn.Module):
    """Predicts (mean, scale) per sample; the scale column is made positive with softplus."""

    def __init__(self, in_dim, hidden=8):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.Tanh(), nn.Linear(hidden, 2))

    def forward(self, x):
        b = self.body(x)
        b = torch.stack([b[:, 0], F.softplus(b[:, 1]) + 1e-4], dim=1)
        return b


def nll(params, y):
    mu, sigma = params[:, 0], params[:, 1]
    return (torch.log(sigma) + 0.5 * ((y - mu) / sigma) ** 2).mean()


def main():
    torch.manual_seed(0)
    head = GaussianHead(3)
    optimizer = torch.optim.Adam(head.parameters(), lr=1e-2)
    x = torch.randn(16, 3)
    y = x.sum(1) + 0.1 * torch.randn(16)
    losses = []
    for _ in range(3):
        params = head(x)
        loss = nll(params, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    out = {"losses": losses, "params": params.detach()}
    for n, p in head.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
