import torch
import torch.nn as nn


class Policy(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, n_actions)
        )

    def forward(self, obs):
        logits = self.net(obs)
        logits = logits - torch.logsumexp(logits, dim=-1, keepdim=True)
        return logits


def main():
    torch.manual_seed(0)
    policy = Policy(4, 3)
    opt = torch.optim.Adam(policy.parameters(), lr=1e-2)
    obs = torch.randn(16, 4)
    actions = torch.randint(0, 3, (16,))
    returns = torch.randn(16)
    returns = (returns - returns.mean()) / (returns.std() + 1e-8)

    history = []
    for epoch in range(3):
        logp = policy(obs)
        chosen = logp.gather(1, actions.unsqueeze(1)).squeeze(1)
        entropy = -(logp.exp() * logp).sum(dim=-1).mean()
        loss = -(chosen * returns).mean() - 0.01 * entropy
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append((loss.item(), entropy.item()))

    return {
        "history": history,
        "final_logp": policy(obs).detach(),
        **{n: p.detach().clone() for n, p in policy.named_parameters()},
    }


if __name__ == "__main__":
    main()
