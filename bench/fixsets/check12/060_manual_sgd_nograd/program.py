import torch


def init_params():
    w1 = (torch.randn(4, 16) * 0.5).requires_grad_()
    b1 = torch.zeros(16, requires_grad=True)
    w2 = (torch.randn(16, 1) * 0.25).requires_grad_()
    return [w1, b1, w2]


def forward(params, x):
    w1, b1, w2 = params
    return torch.tanh(x @ w1 + b1) @ w2


def main():
    torch.manual_seed(0)
    params = init_params()
    bufs = [torch.zeros_like(p) for p in params]
    x = torch.randn(32, 4)
    y = torch.sin(x.sum(1, keepdim=True))
    lr, mom = 0.05, 0.9
    losses = []
    for _ in range(5):
        loss = ((forward(params, x) - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            for p, buf in zip(params, bufs):
                buf.mul_(mom).add_(p.grad)
                p.sub_(lr * buf)
                p.grad.zero_()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in params]}


if __name__ == "__main__":
    main()
