import torch


def main():
    torch.manual_seed(0)
    X = torch.randn(50, 3)
    true_w = torch.tensor([[2.0], [-1.0], [0.5]])
    y = X @ true_w + 0.3 + 0.05 * torch.randn(50, 1)

    w = torch.zeros(3, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr = 0.1
    losses = []
    for epoch in range(5):
        pred = X @ w + b
        loss = ((pred - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        losses.append(loss.item())
    return {"w": w.detach().clone(), "b": b.detach().clone(), "losses": losses}


if __name__ == "__main__":
    main()
