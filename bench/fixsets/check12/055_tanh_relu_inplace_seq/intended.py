import torch
import torch.nn as nn
import torch.nn.functional as F


def build_mlp(d_in, d_h, n_out):
    return nn.Sequential(
        nn.Linear(d_in, d_h),
        nn.Tanh(),
        nn.ReLU(),
        nn.Linear(d_h, n_out),
    )


def main():
    torch.manual_seed(0)
    model = build_mlp(5, 16, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 5)
    y = torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
