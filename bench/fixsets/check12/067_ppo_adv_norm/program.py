import torch
import torch.nn as nn
from torch.distributions import Categorical


class ActorCritic(nn.Module):
    def __init__(self, obs_dim, n_act):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh())
        self.pi = nn.Linear(32, n_act)
        self.v = nn.Linear(32, 1)

    def forward(self, obs):
        h = self.body(obs)
        return self.pi(h), self.v(h).squeeze(-1)


def compute_gae(rewards, values, last_value, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    gae = 0.0
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        delta = rewards[t] + gamma * next_v - values[t]
        gae = delta + gamma * lam * gae
        adv[t] = gae
    return adv


def main():
    torch.manual_seed(0)
    ac = ActorCritic(4, 3)
    opt = torch.optim.Adam(ac.parameters(), lr=3e-4, eps=1e-5)
    obs = torch.randn(16, 4)
    rewards = torch.randn(16)
    with torch.no_grad():
        logits, values = ac(obs)
        dist = Categorical(logits=logits)
        actions = dist.sample()
        old_logp = dist.log_prob(actions)
        adv = compute_gae(rewards, values, last_value=torch.tensor(0.0))
        returns = adv + values
        adv.sub_(adv.mean()).div_(adv.std() + 1e-8)
    for _ in range(2):
        logits, v = ac(obs)
        dist = Categorical(logits=logits)
        ratio = (dist.log_prob(actions) - old_logp).exp()
        pg = -torch.min(ratio * adv, ratio.clamp(0.8, 1.2) * adv).mean()
        v_clipped = values + (v - values).clamp(-0.2, 0.2)
        v_loss = torch.max((v - returns) ** 2, (v_clipped - returns) ** 2).mean()
        loss = pg + 0.5 * v_loss - 0.01 * dist.entropy().mean()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(ac.parameters(), 0.5)
        opt.step()
    return {"loss": loss.detach(), "adv": adv, "params": [p.detach().clone() for p in ac.parameters()]}


if __name__ == "__main__":
    main()
