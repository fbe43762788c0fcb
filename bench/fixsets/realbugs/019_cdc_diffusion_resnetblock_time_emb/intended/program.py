"""CDC_compression (conditional diffusion image compression): training the denoiser whose
ResnetBlocks add the time embedding to the first block's output with `h += ...`."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from network_components import ResnetBlock, SinusoidalPosEmb


class Denoiser(nn.Module):
    def __init__(self, dim=8, channels=3):
        super().__init__()
        time_dim = dim * 2
        self.time_mlp = nn.Sequential(SinusoidalPosEmb(dim), nn.Linear(dim, time_dim), nn.LeakyReLU(0.2),
                                      nn.Linear(time_dim, time_dim))
        self.init_conv = nn.Conv2d(channels, dim, 3, padding=1)
        self.res1 = ResnetBlock(dim, dim * 2, time_emb_dim=time_dim)
        self.res2 = ResnetBlock(dim * 2, dim, time_emb_dim=time_dim)
        self.final_conv = nn.Conv2d(dim, channels, 1)

    def forward(self, x, t):
        t = self.time_mlp(t)
        x = self.init_conv(x)
        x = self.res1(x, t)
        x = self.res2(x, t)
        return self.final_conv(x)


def linear_beta_schedule(timesteps):
    return torch.linspace(1e-4, 0.02, timesteps)


def main():
    torch.manual_seed(0)
    num_timesteps = 20
    betas = linear_beta_schedule(num_timesteps)
    alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
    sqrt_alphas_cumprod = alphas_cumprod.sqrt()
    sqrt_one_minus_alphas_cumprod = (1.0 - alphas_cumprod).sqrt()

    model = Denoiser()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        x_start = torch.rand(2, 3, 8, 8) * 2 - 1
        t = torch.randint(0, num_timesteps, (2,))
        noise = torch.randn_like(x_start)
        x_noisy = sqrt_alphas_cumprod[t][:, None, None, None] * x_start + \
            sqrt_one_minus_alphas_cumprod[t][:, None, None, None] * noise
        pred = model(x_noisy, t.float())
        loss = F.mse_loss(pred, noise)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())

    out = {'losses': losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
