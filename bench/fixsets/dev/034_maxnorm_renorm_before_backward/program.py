import torch
import torch.nn as nn


def apply_max_norm(model, max_norm=0.5):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.renorm_(2, 0, max_norm)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 12), nn.ELU(), nn.Linear(12, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    x = torch.randn(30, 6)
    y = torch.randint(0, 3, (30,))
    losses = []
    for step in range(3):
        logits = model(x)
        loss = nn.functional.cross_entropy(logits, y)
        apply_max_norm(model)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
