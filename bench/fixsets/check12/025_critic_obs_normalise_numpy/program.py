import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Critic(nn.Module):
    def __init__(self, obs_dim):
        super().__init__()
        self.v = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, obs):
        return self.v(obs).squeeze(-1)


def critic_update(critic, opt, obs, returns, stats):
    values = critic(obs)
    loss = F.mse_loss(values, returns)
    # store normalised observations for the replay buffer
    obs_np = obs.numpy()
    obs_np -= stats["mean"]
    obs_np /= stats["std"]
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), obs_np


def main():
    torch.manual_seed(0)
    critic = Critic(5)
    opt = torch.optim.Adam(critic.parameters(), lr=3e-3)
    obs = torch.randn(20, 5) * 2 + 1
    returns = torch.randn(20)
    stats = {"mean": np.full(5, 1.0, dtype=np.float32), "std": np.full(5, 2.0, dtype=np.float32)}
    loss, stored = critic_update(critic, opt, obs, returns, stats)
    return {"loss": loss, "stored": torch.from_numpy(stored).clone(), "params": [p.detach().clone() for p in critic.parameters()]}


if __name__ == "__main__":
    main()
