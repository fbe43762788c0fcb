import torch
import torch.nn as nn
import torch.nn.functional as F


def generator_step(G, D, opt_g, z):
    fake = torch.tanh(G(z))
    g_loss = F.softplus(-D(fake)).mean()
    grid = fake.add_(1).mul_(127.5).clamp_(0, 255).round()
    opt_g.zero_grad()
    g_loss.backward()
    opt_g.step()
    return g_loss.item(), grid


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 12))
    D = nn.Sequential(nn.Linear(12, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
    z = torch.randn(6, 3)
    g_loss, grid = generator_step(G, D, opt_g, z)
    return {"g_loss": g_loss, "grid": grid.detach(), "G": [p.detach().clone() for p in G.parameters()]}


if __name__ == "__main__":
    main()
