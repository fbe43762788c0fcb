import torch
import torch.nn as nn
import torch.nn.functional as F


def pgd_attack(model, x, y, eps=0.1, alpha=0.03, steps=3):
    x_adv = x.clone().requires_grad_(True)
    for _ in range(steps):
        loss = F.cross_entropy(model(x_adv), y)
        loss.backward()
        with torch.no_grad():
            x_adv += alpha * x_adv.grad.sign()
            x_adv.copy_(torch.min(torch.max(x_adv, x - eps), x + eps).clamp(0, 1))
        x_adv.grad.zero_()
    return x_adv.detach()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.rand(8, 1, 4, 4)
    y = torch.randint(0, 4, (8,))

    x_adv = pgd_attack(model, x, y)
    opt.zero_grad()
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    opt.step()
    return {"x_adv": x_adv, "adv_loss": loss.item(),
            "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
