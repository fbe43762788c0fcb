import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def brier_and_nll(p, y, eps=1e-3):
    np.clip(p, eps, 1 - eps, out=p)
    p /= p.sum(axis=1, keepdims=True)
    onehot = np.eye(p.shape[1], dtype=p.dtype)[y]
    brier = ((p - onehot) ** 2).sum(1).mean()
    nll = -np.log(p[np.arange(len(y)), y]).mean()
    return float(brier), float(nll)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x = torch.randn(24, 5) * 2
    y = torch.randint(0, 3, (24,))
    metrics = []
    for _ in range(3):
        probs = torch.softmax(model(x), dim=-1)
        loss = -torch.log(probs.gather(1, y[:, None])).mean()
        p = probs.detach().numpy().copy()
        metrics.append(brier_and_nll(p, y.numpy()))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "metrics": metrics, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
