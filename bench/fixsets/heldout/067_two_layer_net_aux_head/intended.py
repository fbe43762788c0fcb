import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    N, D, H, C = 32, 6, 12, 3
    X = torch.randn(N, D)
    y = torch.randint(0, C, (N,))

    W1 = (0.5 * torch.randn(D, H)).requires_grad_()
    b1 = torch.zeros(H, requires_grad=True)
    W2 = (0.5 * torch.randn(H, C)).requires_grad_()
    b2 = torch.zeros(C, requires_grad=True)
    W3 = (0.5 * torch.randn(H, C)).requires_grad_()
    b3 = torch.zeros(C, requires_grad=True)
    params = [W1, b1, W2, b2, W3, b3]

    lr, p_drop = 0.1, 0.5
    losses = []
    for step in range(3):
        z1 = X @ W1 + b1
        a1 = z1.clamp(min=0)
        scores = a1 @ W2 + b2

        # the auxiliary head only sees dropped-out features
        keep = (torch.rand(N, H) > p_drop).float() / (1 - p_drop)
        a1 = a1 * keep
        aux_scores = a1 @ W3 + b3

        loss = F.cross_entropy(scores, y) + 0.3 * F.cross_entropy(aux_scores, y)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad.zero_()
        losses.append(loss.item())

    return {"losses": losses, "W1": W1.detach(), "b1": b1.detach(), "W2": W2.detach(),
            "b2": b2.detach(), "W3": W3.detach(), "b3": b3.detach()}


if __name__ == "__main__":
    main()
