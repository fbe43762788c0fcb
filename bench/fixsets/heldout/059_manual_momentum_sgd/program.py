import torch


def init_params(d_in, d_hidden, n_classes):
    W1 = torch.randn(d_in, d_hidden) * (2.0 / d_in) ** 0.5
    W2 = torch.randn(d_hidden, n_classes) * (1.0 / d_hidden) ** 0.5
    params = [W1, torch.zeros(d_hidden), W2, torch.zeros(n_classes)]
    for p in params:
        p.requires_grad_()
    return params


def forward(params, X):
    W1, b1, W2, b2 = params
    H = torch.relu(X @ W1 + b1)
    return H @ W2 + b2


def sgd_momentum(params, states, lr, momentum, wd):
    with torch.no_grad():
        for p, v in zip(params, states):
            g = p.grad.add(p, alpha=wd)
            v.mul_(momentum).add_(g)
            p.sub_(lr * v)
            p.grad.zero_()


def main():
    torch.manual_seed(0)
    X = torch.randn(50, 4)
    y = (X[:, 0] * X[:, 1] > 0).long()
    params = init_params(4, 16, 2)
    states = [torch.zeros_like(p) for p in params]
    losses = []
    for epoch in range(10):
        loss = torch.nn.functional.cross_entropy(forward(params, X), y)
        loss.backward()
        sgd_momentum(params, states, lr=0.1, momentum=0.9, wd=1e-4)
        losses.append(loss.item())
    acc = (forward(params, X).argmax(1) == y).float().mean().item()
    return {"losses": losses, "acc": acc, "params": [p.detach() for p in params], "momentum": states}


if __name__ == "__main__":
    main()
