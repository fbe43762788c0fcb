import torch
import torch.nn as nn
import torch.nn.functional as F


class MyBatchNorm1d(nn.Module):
    def __init__(self, num_features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(num_features))
        self.bias = nn.Parameter(torch.zeros(num_features))
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_tracked", torch.tensor(0, dtype=torch.long))
        self.momentum, self.eps = momentum, eps

    def forward(self, x):
        if self.training:
            mean = x.mean(0)
            var = x.var(0, unbiased=False)
            with torch.no_grad():
                n = x.shape[0]
                self.running_mean.mul_(1 - self.momentum).add_(self.momentum * mean)
                self.running_var.mul_(1 - self.momentum).add_(self.momentum * var * n / (n - 1))
                self.num_batches_tracked += 1
        else:
            mean, var = self.running_mean, self.running_var
        x_hat = (x - mean) / torch.sqrt(var + self.eps)
        return x_hat * self.weight + self.bias


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 12), MyBatchNorm1d(12), nn.ReLU(inplace=True), nn.Linear(12, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    X = torch.randn(40, 6) * 2 + 1
    y = (X[:, 0] > 1).long()
    model.train()
    for xb, yb in zip(X.split(10), y.split(10)):
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        eval_logits = model(X)
    return {"last_loss": loss.item(), "eval_logits": eval_logits,
            "state": {k: v.clone() for k, v in model.state_dict().items()}}


if __name__ == "__main__":
    main()
