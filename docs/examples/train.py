import torch


def main():
    x = torch.randn(4, 3, requires_grad=True)
    u = x.exp()
    loss = u.sum()
    u[0] = 0.0
    loss.backward()
    return x.grad


if __name__ == "__main__":
    main()
