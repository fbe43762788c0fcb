import torch
import torch.nn as nn
import torch.nn.functional as F


class MyBatchNorm1d(nn.Module):
    def __init__(self, d, momentum=0.1, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))
        self.bias = nn.Parameter(torch.zeros(d))
        self.register_buffer("running_mean", torch.zeros(d))
        self.register_buffer("running_var", torch.ones(d))
        self.momentum = momentum
        self.eps = eps

    def forward(self, x):
        if self.training:
            mean = x.mean(0)
            var = x.var(0, unbiased=False)
            with torch.no_grad():
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var * x.shape[0] / (x.shape[0] - 1))
        else:
            mean, var = self.running_mean, self.running_var
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 10), MyBatchNorm1d(10), nn.ReLU(), nn.Linear(10, 2))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(16, 5) * 3 + 1
    y = torch.randint(0, 2, (16,))
    model.train()
    for _ in range(3):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        eval_logits = model(x)
    return {
        "loss": loss.detach(),
        "eval_logits": eval_logits,
        "running_mean": model[1].running_mean.clone(),
        "running_var": model[1].running_var.clone(),
        "params": [p.detach().clone() for p in model.parameters()],
    }


if __name__ == "__main__":
    main()
