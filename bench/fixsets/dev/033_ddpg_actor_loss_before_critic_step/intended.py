import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(s_dim, 16), nn.ReLU(), nn.Linear(16, a_dim), nn.Tanh())

    def forward(self, s):
        return self.net(s)


class Critic(nn.Module):
    def __init__(self, s_dim, a_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(s_dim + a_dim, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, s, a):
        return self.net(torch.cat([s, a], dim=-1))


def update(actor, critic, actor_opt, critic_opt, batch, gamma=0.99):
    s, a, r, s2, done = batch
    with torch.no_grad():
        q_target = r + gamma * (1 - done) * critic(s2, actor(s2))
    critic_loss = F.mse_loss(critic(s, a), q_target)

    critic_opt.zero_grad()
    critic_loss.backward()
    critic_opt.step()

    actor_loss = -critic(s, actor(s)).mean()

    actor_opt.zero_grad()
    actor_loss.backward()
    actor_opt.step()
    return critic_loss.item(), actor_loss.item()


def main():
    torch.manual_seed(0)
    actor, critic = Actor(4, 2), Critic(4, 2)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    n = 12
    batch = (torch.randn(n, 4), torch.rand(n, 2) * 2 - 1, torch.randn(n, 1),
             torch.randn(n, 4), (torch.rand(n, 1) < 0.1).float())
    c_loss, a_loss = update(actor, critic, actor_opt, critic_opt, batch)
    return {
        "critic_loss": c_loss,
        "actor_loss": a_loss,
        "actor": [p.detach().clone() for p in actor.parameters()],
        "actor.grad": [p.grad for p in actor.parameters()],
        "critic": [p.detach().clone() for p in critic.parameters()],
    }


if __name__ == "__main__":
    main()
