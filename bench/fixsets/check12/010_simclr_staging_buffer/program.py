import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, d_in, d_out, batch):
        super().__init__()
        self.register_buffer("staging", torch.zeros(batch, d_in))
        self.net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_out))

    def forward(self, x):
        self.staging.copy_(x)
        self.staging.sub_(self.staging.mean(dim=1, keepdim=True))
        return F.normalize(self.net(self.staging), dim=1)


def nt_xent(z1, z2, tau=0.5):
    n = z1.shape[0]
    z = torch.cat([z1, z2])
    sim = z @ z.t() / tau
    sim.fill_diagonal_(-1e9)
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def main():
    torch.manual_seed(0)
    enc = Encoder(12, 8, batch=6)
    opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
    x = torch.randn(6, 12)
    losses = []
    for _ in range(2):
        z1 = enc(augment(x))
        z2 = enc(augment(x))
        loss = nt_xent(z1, z2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in enc.parameters()], "staging": enc.staging.clone()}


if __name__ == "__main__":
    main()
