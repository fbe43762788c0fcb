import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, dim, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim))

    def forward(self, y):
        return self.net(y)


def euler_integrate(func, y0, n_steps, dt):
    states = [y0]
    for i in range(n_steps):
        states.append(states[i] + dt * func(states[i]))
    return torch.stack(states)


def main():
    torch.manual_seed(0)
    func = ODEFunc(2)
    opt = torch.optim.Adam(func.parameters(), lr=1e-2)
    y0 = torch.randn(8, 2)
    target = torch.randn(8, 2)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        traj = euler_integrate(func, y0, n_steps=10, dt=0.1)
        loss = ((traj[-1] - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in func.parameters()]}


if __name__ == "__main__":
    main()
