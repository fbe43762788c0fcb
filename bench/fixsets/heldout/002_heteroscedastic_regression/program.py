import torch
import torch.nn as nn
import torch.nn.functional as F


class HeteroscedasticRegressor(nn.Module):
    def __init__(self, d=5, h=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d, h), nn.SiLU(inplace=True), nn.Linear(h, h), nn.SiLU(inplace=True))
        self.mean = nn.Linear(h, 1)
        self.log_std = nn.Parameter(torch.zeros(1))
        self.temperature = nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.mean(self.body(x)) / self.temperature


def main():
    torch.manual_seed(0)
    model = HeteroscedasticRegressor()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    X = torch.randn(64, 5)
    y = X[:, :1] * 2 - X[:, 1:2] + 0.3 * torch.randn(64, 1)
    total_norms, losses = [], []
    for epoch in range(4):
        for xb, yb in zip(X.split(32), y.split(32)):
            mu = model(xb)
            std = model.log_std.exp()
            loss = (0.5 * ((yb - mu) / std) ** 2 + model.log_std).mean()
            opt.zero_grad()
            loss.backward()
            total_norms.append(nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0).item())
            with torch.no_grad():
                for name, p in model.named_parameters():
                    if p.ndim > 1:
                        p.mul_(1 - 1e-2 * 1e-2)
            opt.step()
            with torch.no_grad():
                model.log_std.clamp_(min=-3.0, max=2.0)
                model.temperature.clamp_(min=0.5)
            losses.append(loss.item())
        sched.step()
    return {"losses": losses, "norms": total_norms, "lr": sched.get_last_lr(),
            "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
