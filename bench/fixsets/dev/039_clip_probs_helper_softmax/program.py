import torch
import torch.nn as nn


def clip_probs_(p, eps=1e-3):
    return p.clamp_(eps, 1.0 - eps)


def focal_loss(logits, target, gamma=2.0):
    probs = logits.softmax(dim=-1)
    probs = clip_probs_(probs)
    pt = probs.gather(1, target[:, None]).squeeze(1)
    return (-(1 - pt) ** gamma * pt.log()).mean(), probs


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 10), nn.ReLU(), nn.Linear(10, 4))
    with torch.no_grad():
        model[2].weight.mul_(8.0)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    x = torch.randn(12, 3)
    y = torch.randint(0, 4, (12,))
    loss, probs = focal_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "probs": probs.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
