import torch
import torch.nn as nn


class ImputingEncoder(nn.Module):
    def __init__(self, d_in, d_h):
        super().__init__()
        self.lin = nn.Linear(d_in, d_h)
        self.fill = nn.Parameter(torch.zeros(d_h))
        self.out = nn.Linear(d_h, 1)

    def forward(self, x, missing):
        h = torch.tanh(self.lin(x))
        h[missing] = self.fill.expand_as(h)[missing]
        return self.out(h * h.sigmoid())


def main():
    torch.manual_seed(0)
    enc = ImputingEncoder(4, 6)
    x = torch.randn(7, 4)
    missing = torch.rand(7, 6) < 0.3
    y = torch.randn(7, 1)
    loss = nn.functional.l1_loss(enc(x, missing), y)
    loss.backward()
    return {"loss": loss.detach(), "fill.grad": enc.fill.grad,
            "lin.weight.grad": enc.lin.weight.grad, "out.weight.grad": enc.out.weight.grad}


if __name__ == "__main__":
    main()
