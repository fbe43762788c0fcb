import torch
import torch.nn as nn
import torch.nn.functional as F


def project_(delta, eps):
    with torch.no_grad():
        delta.clamp_(-eps, eps)


def pgd_attack(model, x, y, eps=0.1, alpha=0.04, steps=3):
    delta = torch.zeros_like(x, requires_grad=True)
    for _ in range(steps):
        loss = F.cross_entropy(model(x + delta), y)
        loss.backward()
        with torch.no_grad():
            delta.add_(alpha * delta.grad.sign())
        project_(delta, eps)
        delta.grad.zero_()
    return delta.detach()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(10, 8)
    y = torch.randint(0, 3, (10,))
    delta = pgd_attack(model, x, y)
    opt.zero_grad()
    adv_loss = F.cross_entropy(model(x + delta), y)
    adv_loss.backward()
    opt.step()
    return {"delta": delta, "adv_loss": adv_loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
