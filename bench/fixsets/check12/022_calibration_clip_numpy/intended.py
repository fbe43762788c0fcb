import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def expected_calibration_error(p, y, n_bins=5):
    conf = p.max(axis=1)
    acc = p.argmax(axis=1) == y
    bins = np.minimum((conf * n_bins).astype(int), n_bins - 1)
    ece = 0.0
    for b in range(n_bins):
        m = bins == b
        if m.any():
            ece += m.mean() * abs(acc[m].mean() - conf[m].mean())
    return float(ece)


def train_step(model, opt, x, y):
    logits = model(x)
    probs = torch.softmax(logits, dim=-1)
    loss = F.nll_loss(torch.log(probs), y)
    p = probs.detach().numpy().copy()
    np.clip(p, 0.05, 0.95, out=p)
    ece = expected_calibration_error(p, y.numpy())
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), ece


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(32, 8) * 3
    y = torch.randint(0, 4, (32,))
    log = [train_step(model, opt, x, y) for _ in range(2)]
    return {
        "log": log,
        "grads": [p.grad.clone() for p in model.parameters()],
        "params": [p.detach().clone() for p in model.parameters()],
    }


if __name__ == "__main__":
    main()
