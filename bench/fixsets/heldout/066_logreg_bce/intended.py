import torch
import torch.nn as nn

EPS = 1e-3


def main():
    torch.manual_seed(0)
    X = torch.randn(64, 5) * 4
    true_w = torch.tensor([1.5, -2.0, 0.5, 0.0, 1.0])
    y = (X @ true_w + 0.3 * torch.randn(64) > 0).float()

    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)

    history = []
    for epoch in range(5):
        probs = torch.sigmoid(model(X)).squeeze(1)
        probs = probs.clamp(EPS, 1 - EPS)
        loss = -(y * torch.log(probs) + (1 - y) * torch.log(1 - probs)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append(loss.item())

    acc = ((probs > 0.5).float() == y).float().mean().item()
    return {
        "history": history,
        "acc": acc,
        "probs": probs.detach(),
        "weights": [p.detach().clone() for p in model.parameters()],
    }


if __name__ == "__main__":
    main()
