"""pytorch/pytorch#36470: the recurrence f(n) = sigmoid(f(n-1) * x) written
into rows of a preallocated tensor f. Kept as reported, inside a few steps of
gradient descent on x.
"""
import torch


def rollout(x, a=1, n=10):
    f = torch.zeros(n)
    f[0] = a
    for i in range(1, n):
        f[i] = f[i-1]*x
        f[i] = 1/(1.0+torch.exp(-f[i]))
    return f


def main():
    torch.manual_seed(0)
    x = torch.ones(1)
    x.requires_grad_()
    target = torch.rand(10)
    losses, grads = [], []
    for _ in range(3):
        f = rollout(x)
        loss = torch.sum((f - target) ** 2)
        grad = torch.autograd.grad(loss, [x])[0]
        with torch.no_grad():
            x -= 0.1 * grad
        losses.append(loss.item())
        grads.append(grad.clone())
    return {'losses': losses, 'grads': grads, 'x': x.detach().clone()}


if __name__ == "__main__":
    main()
