import torch
import torch.nn as nn


class ODEFunc(nn.Module):
    def __init__(self, dim=2, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim))

    def forward(self, t, y):
        return self.net(y)


def odeint_euler(func, y0, t_grid):
    y = y0.clone()
    traj = [y0]
    for i in range(len(t_grid) - 1):
        dt = float(t_grid[i + 1] - t_grid[i])
        y = y + dt * func(t_grid[i], y)
        traj.append(y.clone())
    return torch.stack(traj)


def main():
    torch.manual_seed(0)
    func = ODEFunc()
    opt = torch.optim.Adam(func.parameters(), lr=1e-2)
    t = torch.linspace(0.0, 1.0, 11)
    y0 = torch.tensor([[1.0, 0.0], [0.5, 0.5]])
    c, sn = torch.cos(t)[:, None, None], torch.sin(t)[:, None, None]
    true = c * y0 - sn * y0.flip(1)
    traj = odeint_euler(func, y0, t)
    loss = (traj - true).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"traj": traj.detach(), "loss": loss.item(),
            "params": [p.detach().clone() for p in func.parameters()]}


if __name__ == "__main__":
    main()
