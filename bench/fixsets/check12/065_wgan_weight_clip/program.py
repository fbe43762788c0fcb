import torch
import torch.nn as nn


def critic_steps(critic, gen, opt_c, real_batches, clip=0.05):
    for real in real_batches:
        fake = gen(torch.randn(real.shape[0], 3)).detach()
        loss_c = critic(fake).mean() - critic(real).mean()
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()
        with torch.no_grad():
            for p in critic.parameters():
                p.clamp_(-clip, clip)
    return loss_c


def main():
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 5))
    critic = nn.Sequential(nn.Linear(5, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-3)
    opt_g = torch.optim.RMSprop(gen.parameters(), lr=5e-3)
    real_batches = [torch.randn(8, 5) + 1 for _ in range(3)]
    loss_c = critic_steps(critic, gen, opt_c, real_batches)
    loss_g = -critic(gen(torch.randn(8, 3))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    return {
        "loss_c": loss_c.detach(),
        "loss_g": loss_g.detach(),
        "critic": [p.detach().clone() for p in critic.parameters()],
        "gen": [p.detach().clone() for p in gen.parameters()],
    }


if __name__ == "__main__":
    main()
