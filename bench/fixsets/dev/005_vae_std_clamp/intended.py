import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyVAE(nn.Module):
    def __init__(self, d=16, z=4):
        super().__init__()
        self.enc = nn.Linear(d, 32)
        self.mu = nn.Linear(32, z)
        self.logvar = nn.Linear(32, z)
        self.dec = nn.Sequential(nn.Linear(z, 32), nn.ReLU(), nn.Linear(32, d))

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        std = std.clamp(min=1e-3)
        eps = torch.randn_like(std)
        return mu + eps * std

    def forward(self, x):
        h = F.relu(self.enc(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = self.reparameterize(mu, logvar)
        return self.dec(z), mu, logvar


def vae_loss(recon, x, mu, logvar):
    rec = F.mse_loss(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return rec + kld


def main():
    torch.manual_seed(0)
    model = TinyVAE()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    data = torch.rand(8, 16)
    recon, mu, logvar = model(data)
    loss = vae_loss(recon, data, mu, logvar)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "recon": recon.detach(),
        "logvar.weight.grad": model.logvar.weight.grad,
        "enc.weight.grad": model.enc.weight.grad,
        "state": [t.detach().clone() for t in model.state_dict().values()],
    }


if __name__ == "__main__":
    main()
