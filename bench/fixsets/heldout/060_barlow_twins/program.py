import torch
import torch.nn as nn


class Projector(nn.Module):
    def __init__(self, d_in=12, d_hidden=32, d_out=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(d_in, d_hidden),
            nn.BatchNorm1d(d_hidden),
            nn.ReLU(inplace=True),
            nn.Linear(d_hidden, d_out),
        )

    def forward(self, x):
        return self.net(x)


def standardise(z):
    z -= z.mean(dim=0)
    z /= z.std(dim=0)
    return z


def off_diagonal(m):
    n = m.shape[0]
    return m.flatten()[:-1].view(n - 1, n + 1)[:, 1:].flatten()


def barlow_loss(z1, z2, lambd=5e-3):
    n = z1.shape[0]
    c = standardise(z1).T @ standardise(z2) / n
    on_diag = (torch.diagonal(c) - 1).pow(2).sum()
    off_diag = off_diagonal(c).pow(2).sum()
    return on_diag + lambd * off_diag


def main():
    torch.manual_seed(0)
    model = Projector()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    x = torch.randn(24, 12)
    losses = []
    for _ in range(2):
        v1 = x + 0.1 * torch.randn_like(x)
        v2 = x * (1 + 0.1 * torch.randn_like(x))
        loss = barlow_loss(model(v1), model(v2))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    out = {"losses": losses}
    out.update({k: v.detach().clone() for k, v in model.state_dict().items()})
    return out


if __name__ == "__main__":
    main()
