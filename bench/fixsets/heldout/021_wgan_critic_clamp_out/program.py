import torch
import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, d=6):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(d, 24), nn.ReLU(), nn.Linear(24, 24), nn.ReLU(), nn.Linear(24, 1))

    def forward(self, x):
        return self.main(x)


def main():
    torch.manual_seed(0)
    critic = Critic()
    optimizer = torch.optim.RMSprop(critic.parameters(), lr=2e-3)
    real = torch.randn(40, 6) + 1.0
    fake = torch.randn(40, 6)
    c = 0.03
    wdist = []
    for it in range(3):
        w_estimate = critic(real).mean() - critic(fake).mean()
        loss = -w_estimate
        with torch.no_grad():
            for p in critic.parameters():
                torch.clamp(p, -c, c, out=p)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        wdist.append(w_estimate.item())
    return {"wdist": wdist, "critic": {k: v.clone() for k, v in critic.state_dict().items()}}


if __name__ == "__main__":
    main()
