import torch


def main():
    torch.manual_seed(0)
    N, D, C = 40, 5, 3
    X = torch.randn(N, D)
    exposure = torch.tensor([0.5, 1.0, 2.0])
    W_true = torch.randn(D, C) * 0.3
    counts = torch.poisson(torch.exp(X @ W_true) * exposure)

    W = torch.zeros(D, C, requires_grad=True)
    b = torch.zeros(C, requires_grad=True)
    opt = torch.optim.LBFGS([W, b], lr=0.5, max_iter=5)

    def closure():
        opt.zero_grad()
        rate = torch.exp(X @ W + b)
        rate += 0.01 * exposure  # small floor on the expected count per class
        nll = (rate - counts * torch.log(rate)).mean()
        nll.backward()
        return nll

    final = opt.step(closure)
    return {"W": W.detach(), "b": b.detach(), "final_nll": final.item()}


if __name__ == "__main__":
    main()
