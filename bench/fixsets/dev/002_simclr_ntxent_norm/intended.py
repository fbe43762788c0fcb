import torch
import torch.nn as nn
import torch.nn.functional as F


def nt_xent(z1, z2, tau=0.5):
    n = z1.shape[0]
    z = torch.cat([z1, z2], dim=0)
    z = z / z.norm(dim=1, keepdim=True)
    sim = z @ z.t() / tau
    sim.fill_diagonal_(float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)])
    return F.cross_entropy(sim, targets)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(12, 24), nn.ReLU(inplace=True), nn.Linear(24, 16))
        self.proj = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 8))

    def forward(self, x):
        return self.proj(self.backbone(x))


def augment(x, g):
    return x + 0.1 * torch.randn(x.shape, generator=g)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(1)
    enc = Encoder()
    opt = torch.optim.Adam(enc.parameters(), lr=1e-3)
    batch = torch.randn(6, 12)
    loss = nt_xent(enc(augment(batch, g)), enc(augment(batch, g)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "w0.grad": enc.backbone[0].weight.grad,
        "proj2.grad": enc.proj[2].weight.grad,
        "params": [p.detach().clone() for p in enc.parameters()],
    }


if __name__ == "__main__":
    main()
