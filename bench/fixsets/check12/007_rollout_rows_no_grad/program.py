import torch
import torch.nn as nn


def env_step(state, action):
    push = (action.float() * 2 - 1) * 0.2
    new_state = 0.9 * state + push
    reward = -new_state.pow(2).sum()
    return new_state, reward


def collect(policy, horizon, obs_dim):
    obs_buf = torch.zeros(horizon, obs_dim)
    act_buf = torch.zeros(horizon, dtype=torch.long)
    rew_buf = torch.zeros(horizon)
    state = torch.randn(obs_dim)
    with torch.no_grad():
        for t in range(horizon):
            obs_buf[t] = state
            logits = policy(state)
            action = torch.distributions.Categorical(logits=logits).sample()
            act_buf[t] = action
            state, reward = env_step(state, action)
            rew_buf[t] = reward
    return obs_buf, act_buf, rew_buf


def main():
    torch.manual_seed(0)
    policy = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 2))
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    gamma = 0.95
    for _ in range(2):
        obs, act, rew = collect(policy, horizon=12, obs_dim=3)
        ret = torch.zeros_like(rew)
        running = 0.0
        for t in reversed(range(len(rew))):
            running = rew[t] + gamma * running
            ret[t] = running
        ret.sub_(ret.mean()).div_(ret.std() + 1e-8)
        logp = torch.log_softmax(policy(obs), dim=-1).gather(1, act[:, None]).squeeze(1)
        loss = -(logp * ret).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "returns": ret, "params": [p.detach().clone() for p in policy.parameters()]}


if __name__ == "__main__":
    main()
