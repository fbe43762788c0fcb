import torch


def init_params(sizes):
    params = []
    for d_in, d_out in zip(sizes[:-1], sizes[1:]):
        W = torch.randn(d_in, d_out) * (2.0 / d_in) ** 0.5
        b = torch.zeros(d_out)
        params += [W.requires_grad_(), b.requires_grad_()]
    return params


def forward(params, x):
    h = x
    for i in range(0, len(params), 2):
        h = h @ params[i] + params[i + 1]
        if i + 2 < len(params):
            h = torch.relu(h)
    return h


def main():
    torch.manual_seed(0)
    params = init_params([4, 16, 3])
    velocity = [torch.zeros_like(p) for p in params]
    x = torch.randn(32, 4)
    y = torch.randint(0, 3, (32,))
    lr, mom, wd = 0.1, 0.9, 1e-3
    losses = []
    for step in range(4):
        loss = torch.nn.functional.cross_entropy(forward(params, x), y)
        loss.backward()
        with torch.no_grad():
            for p, v in zip(params, velocity):
                p.mul_(1 - lr * wd)
                v.mul_(mom).add_(p.grad)
                p.sub_(lr * v)
                p.grad.zero_()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in params], "velocity": velocity}


if __name__ == "__main__":
    main()
