import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model, opt, x, y, lam=0.7):
    opt.zero_grad()
    clean_loss = F.cross_entropy(model(x), y)
    x_a, x_b = x.chunk(2)
    y_a, y_b = y.chunk(2)
    x_b.mul_(lam).add_(x_a, alpha=1 - lam)
    mixed = model(x_b)
    mix_loss = lam * F.cross_entropy(mixed, y_b) + (1 - lam) * F.cross_entropy(mixed, y_a)
    loss = clean_loss + mix_loss
    loss.backward()
    opt.step()
    return loss.item()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 20), nn.ReLU(), nn.Linear(20, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=1e-4)
    x = torch.randn(16, 6)
    y = torch.randint(0, 4, (16,))
    loss = train_step(model, opt, x, y)
    return {"loss": loss, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
