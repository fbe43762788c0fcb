import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self, z_dim=4):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, 2))

    def forward(self, z):
        return self.net(z)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1)
        )

    def forward(self, x):
        return self.net(x)


def main():
    torch.manual_seed(0)
    clip_value, n_critic = 0.05, 2
    G, D = Generator(), Critic()
    opt_G = torch.optim.RMSprop(G.parameters(), lr=5e-3)
    opt_D = torch.optim.RMSprop(D.parameters(), lr=5e-3)
    real = torch.randn(64, 2) * 0.5 + torch.tensor([2.0, 0.0])

    d_losses, g_losses = [], []
    for it in range(3):
        for _ in range(n_critic):
            fake = G(torch.randn(64, 4)).detach()
            loss_D = D(fake).mean() - D(real).mean()
            opt_D.zero_grad()
            loss_D.backward()
            opt_D.step()
            # Lipschitz constraint
            for p in D.parameters():
                p.data.clamp_(-clip_value, clip_value)
            d_losses.append(loss_D.item())

        loss_G = -D(G(torch.randn(64, 4))).mean()
        opt_G.zero_grad()
        loss_G.backward()
        opt_G.step()
        g_losses.append(loss_G.item())

    return {
        "d_losses": d_losses,
        "g_losses": g_losses,
        "D": {n: p.detach().clone() for n, p in D.named_parameters()},
        "G": {n: p.detach().clone() for n, p in G.named_parameters()},
    }


if __name__ == "__main__":
    main()
