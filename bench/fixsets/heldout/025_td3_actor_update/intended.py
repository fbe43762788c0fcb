import torch
import torch.nn as nn
import torch.nn.functional as F


class Actor(nn.Module):
    def __init__(self, state_dim, action_dim, max_action):
        super().__init__()
        self.l1 = nn.Linear(state_dim, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, action_dim)
        self.max_action = max_action

    def forward(self, state):
        a = F.relu(self.l1(state))
        a = F.relu(self.l2(a))
        a = torch.tanh(self.l3(a))
        a = a * self.max_action
        return a


class Critic(nn.Module):
    def __init__(self, state_dim, action_dim):
        super().__init__()
        self.l1 = nn.Linear(state_dim + action_dim, 64)
        self.l2 = nn.Linear(64, 64)
        self.l3 = nn.Linear(64, 1)

    def forward(self, state, action):
        q = F.relu(self.l1(torch.cat([state, action], 1)))
        q = F.relu(self.l2(q))
        return self.l3(q)


def main():
    torch.manual_seed(0)
    state_dim, action_dim, max_action = 6, 2, 2.0
    actor = Actor(state_dim, action_dim, max_action)
    critic = Critic(state_dim, action_dim)
    actor_optimizer = torch.optim.Adam(actor.parameters(), lr=3e-4)
    state = torch.randn(32, state_dim)

    actor_loss = -critic(state, actor(state)).mean()
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()

    return {
        "actor_loss": actor_loss.item(),
        "actions_after": actor(state).detach(),
        "actor": {n: p.detach().clone() for n, p in actor.named_parameters()},
        "critic_grads": {n: p.grad for n, p in critic.named_parameters()},
    }


if __name__ == "__main__":
    main()
