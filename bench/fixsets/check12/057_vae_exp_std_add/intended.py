import torch
import torch.nn as nn
import torch.nn.functional as F


class VAE(nn.Module):
    def __init__(self, d, z):
        super().__init__()
        self.enc = nn.Linear(d, 2 * z)
        self.dec = nn.Linear(z, d)

    def forward(self, x):
        mu, logvar = self.enc(x).chunk(2, dim=-1)
        std = torch.exp(0.5 * logvar)
        std = std + 1e-4
        z = mu + std * torch.randn_like(std)
        return self.dec(z), mu, logvar


def main():
    torch.manual_seed(0)
    vae = VAE(10, 3)
    opt = torch.optim.Adam(vae.parameters(), lr=1e-3)
    x = torch.randn(16, 10)
    recon, mu, logvar = vae(x)
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1).mean()
    loss = F.mse_loss(recon, x) + 0.1 * kl
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in vae.parameters()]}


if __name__ == "__main__":
    main()
