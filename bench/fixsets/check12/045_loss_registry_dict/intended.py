import torch
import torch.nn as nn
import torch.nn.functional as F


def _hinge(scores, y):
    margins = torch.relu(1 - y * scores)
    loss = margins.mean()
    margins = margins.clone()
    margins[margins > 0.5] = 0.5  # report capped margins
    return loss, margins


def _logistic(scores, y):
    return F.softplus(-y * scores).mean(), (y * scores).detach()


LOSSES = {"hinge": _hinge, "logistic": _logistic}


def fit(model, x, y, kind, steps=2, lr=0.1):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = LOSSES[kind]
    for _ in range(steps):
        loss, margins = loss_fn(model(x).squeeze(-1), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item(), margins.detach()


def main():
    torch.manual_seed(0)
    svm = nn.Linear(4, 1)
    x = torch.randn(20, 4)
    y = torch.where(x[:, 0] + 0.3 * torch.randn(20) > 0, 1.0, -1.0)
    loss, margins = fit(svm, x, y, kind="hinge")
    return {"loss": loss, "margins": margins, "params": [p.detach().clone() for p in svm.parameters()]}


if __name__ == "__main__":
    main()
