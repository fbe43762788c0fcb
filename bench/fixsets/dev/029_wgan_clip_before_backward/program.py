import torch
import torch.nn as nn


def make_critic():
    return nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))


def make_generator():
    return nn.Sequential(nn.Linear(3, 16), nn.ReLU(), nn.Linear(16, 2))


def main():
    torch.manual_seed(0)
    critic, gen = make_critic(), make_generator()
    c_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-3)
    g_opt = torch.optim.RMSprop(gen.parameters(), lr=5e-3)
    clip = 0.05
    real_data = torch.randn(64, 2) * 0.5 + torch.tensor([2.0, -1.0])
    c_losses, g_losses = [], []
    for it in range(3):
        for _ in range(2):
            real = real_data[torch.randint(0, 64, (16,))]
            fake = gen(torch.randn(16, 3)).detach()
            c_loss = critic(fake).mean() - critic(real).mean()
            c_opt.zero_grad()
            # weight clipping (Lipschitz constraint)
            with torch.no_grad():
                for p in critic.parameters():
                    p.clamp_(-clip, clip)
            c_loss.backward()
            c_opt.step()
            c_losses.append(c_loss.item())
        g_loss = -critic(gen(torch.randn(16, 3))).mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()
        g_losses.append(g_loss.item())
    return {
        "c_losses": c_losses,
        "g_losses": g_losses,
        "critic": [p.detach().clone() for p in critic.parameters()],
        "gen": [p.detach().clone() for p in gen.parameters()],
        "gen.grad": [p.grad for p in gen.parameters()],
    }


if __name__ == "__main__":
    main()
