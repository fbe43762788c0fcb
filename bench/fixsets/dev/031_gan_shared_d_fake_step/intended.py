import torch
import torch.nn as nn
import torch.nn.functional as F


class Generator(nn.Module):
    def __init__(self, z_dim=4, out_dim=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 16), nn.ReLU(), nn.Linear(16, out_dim))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, in_dim=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x)


def train_step(G, D, g_opt, d_opt, real, z):
    ones = torch.ones(real.shape[0], 1)
    zeros = torch.zeros(real.shape[0], 1)
    fake = G(z)
    d_fake = D(fake)
    d_loss = F.binary_cross_entropy_with_logits(D(real), ones) + \
        F.binary_cross_entropy_with_logits(d_fake, zeros)
    d_opt.zero_grad()
    d_loss.backward(retain_graph=True)

    g_loss = F.binary_cross_entropy_with_logits(d_fake, ones)
    g_opt.zero_grad()
    g_loss.backward(inputs=list(G.parameters()))
    d_opt.step()
    g_opt.step()
    return d_loss.detach(), g_loss.detach()


def main():
    torch.manual_seed(0)
    G, D = Generator(), Discriminator()
    g_opt = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real_all = torch.randn(32, 3) + 1.0
    d_losses, g_losses = [], []
    for i in range(2):
        d_loss, g_loss = train_step(G, D, g_opt, d_opt, real_all[i * 16:(i + 1) * 16], torch.randn(16, 4))
        d_losses.append(d_loss)
        g_losses.append(g_loss)
    return {
        "d_losses": d_losses,
        "g_losses": g_losses,
        "G": [p.detach().clone() for p in G.parameters()],
        "G.grad": [p.grad for p in G.parameters()],
        "D": [p.detach().clone() for p in D.parameters()],
    }


if __name__ == "__main__":
    main()
