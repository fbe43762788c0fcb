import torch
import torch.nn as nn


class RunningNorm(nn.Module):
    def __init__(self, dim, momentum=0.1):
        super().__init__()
        self.momentum = momentum
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("inv_std", torch.ones(dim))

    def forward(self, x):
        y = (x - self.mean) * self.inv_std.clone()
        if self.training:
            with torch.no_grad():
                self.mean.lerp_(x.mean(0), self.momentum)
                self.inv_std.lerp_(1.0 / (x.std(0) + 1e-5), self.momentum)
        return y


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 6), RunningNorm(6), nn.ReLU(), nn.Linear(6, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(16, 4) * 3 + 1
    y = torch.randn(16, 1)
    for _ in range(2):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "mean": model[1].mean.clone(), "inv_std": model[1].inv_std.clone(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
