import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(inplace=True), nn.Linear(16, 8), nn.Tanh())
    D = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real = torch.randn(16, 8).tanh_()
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
    for _ in range(3):
        z = torch.randn(16, 4)
        fake = G(z)
        opt_d.zero_grad()
        d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + F.binary_cross_entropy_with_logits(D(fake.detach()), zeros)
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        g_loss = F.binary_cross_entropy_with_logits(D(fake), ones)
        g_loss.backward()
        opt_g.step()
    return {
        "d_loss": d_loss.detach(),
        "g_loss": g_loss.detach(),
        "G": [p.detach().clone() for p in G.parameters()],
        "D": [p.detach().clone() for p in D.parameters()],
    }


if __name__ == "__main__":
    main()
