import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim, out_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.LeakyReLU(0.2), nn.Linear(32, out_dim))

    def forward(self, z):
        fake = torch.sigmoid(self.net(z))
        fake = fake.sub(0.5).div(0.5)
        return fake


def main():
    torch.manual_seed(0)
    G = Generator(4, 10)
    D = nn.Sequential(nn.Linear(10, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    z = torch.randn(8, 4)
    fake = G(z)
    g_loss = F.binary_cross_entropy_with_logits(D(fake), torch.ones(8, 1))
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    return {"g_loss": g_loss.detach(), "fake": fake.detach(), "G": [p.detach().clone() for p in G.parameters()]}


if __name__ == "__main__":
    main()
