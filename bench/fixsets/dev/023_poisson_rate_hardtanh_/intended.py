import torch
import torch.nn as nn
import torch.nn.functional as F


class PoissonRegressor(nn.Module):
    def __init__(self, d_in, max_rate=6.0):
        super().__init__()
        self.log_rate = nn.Sequential(nn.Linear(d_in, 8), nn.Softplus(), nn.Linear(8, 1))
        self.max_rate = max_rate

    def forward(self, x):
        rate = torch.exp(self.log_rate(x))
        rate = F.hardtanh(rate, 0.0, self.max_rate)
        return rate.squeeze(-1)


def main():
    torch.manual_seed(0)
    model = PoissonRegressor(3)
    with torch.no_grad():
        model.log_rate[2].bias.fill_(1.5)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x = torch.randn(16, 3) * 2
    counts = torch.poisson(torch.full((16,), 3.0))
    rate = model(x)
    loss = F.poisson_nll_loss(rate, counts, log_input=False)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"rate": rate.detach(), "loss": loss.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
