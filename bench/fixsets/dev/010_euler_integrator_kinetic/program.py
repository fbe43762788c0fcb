import torch
import torch.nn as nn


class ForceField(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 16), nn.Tanh(), nn.Linear(16, dim))

    def forward(self, q):
        return self.net(q)


def simulate(field, q0, v0, dt=0.1, steps=4):
    q, v = q0, v0
    kinetic = 0.0
    for _ in range(steps):
        kinetic = kinetic + 0.5 * (v ** 2).sum()
        a = field(q)
        v += dt * a
        q = q + dt * v
    return q, v, kinetic


def main():
    torch.manual_seed(0)
    field = ForceField(3)
    q0 = torch.randn(5, 3)
    v0 = torch.zeros(5, 3)
    target = torch.randn(5, 3)
    q, v, kinetic = simulate(field, q0, v0)
    loss = ((q - target) ** 2).mean() + 0.01 * kinetic
    loss.backward()
    return {
        "q": q.detach(),
        "v": v.detach(),
        "loss": loss.detach(),
        "grads": [p.grad for p in field.parameters()],
    }


if __name__ == "__main__":
    main()
