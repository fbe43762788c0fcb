import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
    gen = nn.Sequential(nn.Linear(3, 16), nn.ReLU(inplace=True), nn.Linear(16, 2))
    c_opt = torch.optim.RMSprop(critic.parameters(), lr=5e-3)
    g_opt = torch.optim.RMSprop(gen.parameters(), lr=5e-3)
    real_data = torch.randn(64, 2) * 0.5 + torch.tensor([2.0, -1.0])
    for it in range(3):
        for _ in range(2):
            real = real_data[torch.randint(0, 64, (16,))]
            fake = gen(torch.randn(16, 3)).detach()
            c_loss = critic(fake).mean() - critic(real).mean()
            c_opt.zero_grad()
            c_loss.backward()
            c_opt.step()
            with torch.no_grad():
                for p in critic.parameters():
                    p.clamp_(-0.05, 0.05)
        g_loss = -critic(gen(torch.randn(16, 3))).mean()
        g_opt.zero_grad()
        g_loss.backward()
        g_opt.step()
    return {"c_loss": c_loss.detach(), "g_loss": g_loss.detach(),
            "critic": [p.detach().clone() for p in critic.parameters()],
            "gen": [p.detach().clone() for p in gen.parameters()]}


if __name__ == "__main__":
    main()
