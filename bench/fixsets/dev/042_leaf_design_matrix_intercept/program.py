import torch


def main():
    torch.manual_seed(0)
    n, d = 20, 4
    X = torch.randn(n, d, requires_grad=True)
    X[:, 0] = 1.0  # intercept column
    beta = torch.tensor([0.5, -1.0, 2.0, 0.25], requires_grad=True)
    y = torch.randn(n)

    logits = X @ beta
    nll = torch.nn.functional.binary_cross_entropy_with_logits(logits, (y > 0).float())
    nll.backward()
    return {"nll": nll.detach(), "beta.grad": beta.grad, "X.grad": X.grad, "X": X.detach().clone()}


if __name__ == "__main__":
    main()
