import torch


def main():
    torch.manual_seed(0)
    n = 100
    X = torch.randn(n, 3)
    true_w = torch.tensor([[2.0], [-3.4], [1.0]])
    y = X @ true_w + 4.2 + 0.01 * torch.randn(n, 1)

    w = torch.normal(0, 0.01, size=(3, 1), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    lr, batch_size = 0.03, 10

    epoch_loss = []
    for epoch in range(3):
        for i in range(0, n, batch_size):
            Xb, yb = X[i:i + batch_size], y[i:i + batch_size]
            l = ((Xb @ w + b - yb) ** 2 / 2).sum()
            l.backward()
            with torch.no_grad():
                w -= lr * w.grad / batch_size
                b -= lr * b.grad / batch_size
            w.grad.zero_()
            b.grad.zero_()
        with torch.no_grad():
            epoch_loss.append(((X @ w + b - y) ** 2 / 2).mean().item())
    return {"w": w.detach(), "b": b.detach(), "epoch_loss": epoch_loss}


if __name__ == "__main__":
    main()
