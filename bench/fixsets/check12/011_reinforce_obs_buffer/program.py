import torch
import torch.nn as nn
from torch.distributions import Categorical


class PolicyNet(nn.Module):
    def __init__(self, obs_dim, n_actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs_dim, 32), nn.Tanh(), nn.Linear(32, n_actions))

    def forward(self, obs):
        return self.body(obs)


def toy_env_step(state, action):
    state = 0.9 * state + (action.float() - 0.5) * 0.3
    return state, -state.pow(2).sum().item()


def run_episode(policy, obs, horizon=15):
    log_probs, rewards = [], []
    state = torch.randn(obs.shape[0])
    for _ in range(horizon):
        obs[:] = state
        dist = Categorical(logits=policy(obs))
        action = dist.sample()
        log_probs.append(dist.log_prob(action))
        state, reward = toy_env_step(state, action)
        rewards.append(reward)
    return log_probs, rewards


def main():
    torch.manual_seed(0)
    policy = PolicyNet(4, 2)
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    obs = torch.zeros(4)
    gamma = 0.99
    log_probs, rewards = run_episode(policy, obs)
    returns, g = [], 0.0
    for r in reversed(rewards):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)
    loss = -(torch.stack(log_probs) * returns).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "returns": returns, "params": [p.detach().clone() for p in policy.parameters()]}


if __name__ == "__main__":
    main()
