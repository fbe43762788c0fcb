import torch
import torch.nn as nn
import torch.nn.functional as F


def standardize_(x, mean, std):
    return x.sub_(mean).div_(std)


def smooth_labels(y, n_classes, eps=0.1):
    t = torch.zeros(len(y), n_classes)
    t.scatter_(1, y.unsqueeze(1), 1.0)
    t.mul_(1 - eps).add_(eps / n_classes)
    return t


def main():
    torch.manual_seed(0)
    X = torch.rand(48, 8) * 10 + 3
    y = torch.randint(0, 3, (48,))
    mean, std = X.mean(0), X.std(0)
    standardize_(X, mean, std)
    X[X.abs() > 2.5] = 0.0  # crude outlier handling
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(inplace=True), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.2, nesterov=True, momentum=0.9)
    losses = []
    for xb, yb in zip(X.split(16), y.split(16)):
        targets = smooth_labels(yb, 3)
        lam = 0.7
        perm = torch.randperm(len(xb))
        xb = xb.clone()
        xb.mul_(lam).add_(xb[perm] * (1 - lam))
        targets.mul_(lam).add_(targets[perm] * (1 - lam))
        logp = F.log_softmax(model(xb), dim=1)
        loss = -(targets * logp).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"X": X, "losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
