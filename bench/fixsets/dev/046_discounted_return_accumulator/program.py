import torch
import torch.nn as nn


class RewardModel(nn.Module):
    def __init__(self, s_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(s_dim, 8), nn.Tanh(), nn.Linear(8, 1))

    def forward(self, s):
        return self.net(s).squeeze(-1)


def imagined_return(model, states, gamma=0.9):
    T, B, _ = states.shape
    disc = torch.ones(B)
    ret = torch.zeros(B)
    for t in range(T):
        ret = ret + disc * model(states[t])
        disc *= gamma
    return ret


def main():
    torch.manual_seed(0)
    model = RewardModel(4)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    states = torch.randn(5, 3, 4)
    observed = torch.tensor([1.0, -0.5, 2.0])
    ret = imagined_return(model, states)
    loss = ((ret - observed) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"ret": ret.detach(), "loss": loss.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
