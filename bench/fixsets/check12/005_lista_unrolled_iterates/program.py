import torch
import torch.nn as nn


class LISTA(nn.Module):
    """Learned ISTA for sparse coding, unrolled for a fixed number of iterations."""

    def __init__(self, n_atoms, n_obs, n_iter=6):
        super().__init__()
        self.A = nn.Parameter(torch.randn(n_obs, n_atoms) / n_obs ** 0.5)
        self.log_step = nn.Parameter(torch.tensor(-1.0))
        self.theta = nn.Parameter(torch.full((n_atoms,), 0.05))
        self.n_iter = n_iter

    def forward(self, y):
        B = y.shape[0]
        xs = torch.zeros(self.n_iter + 1, B, self.A.shape[1])
        step = self.log_step.exp()
        for k in range(self.n_iter):
            residual = xs[k] @ self.A.T - y
            z = xs[k] - step * (residual @ self.A)
            xs[k + 1] = torch.sign(z) * torch.relu(z.abs() - self.theta)
        return xs[-1]


def main():
    torch.manual_seed(0)
    model = LISTA(n_atoms=12, n_obs=8)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    codes = torch.randn(16, 12) * (torch.rand(16, 12) < 0.2)
    y = codes @ torch.randn(12, 8) / 3
    history = []
    for _ in range(2):
        opt.zero_grad()
        x_hat = model(y)
        loss = ((x_hat @ model.A.T - y) ** 2).mean() + 0.01 * x_hat.abs().mean()
        loss.backward()
        opt.step()
        history.append(loss.item())
    return {"losses": history, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
