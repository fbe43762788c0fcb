import torch
import torch.nn as nn

from swiglu import LigerSiLUMulFunction


class Exponential(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(x)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, out_grad):
        (out,) = ctx.saved_tensors
        return out_grad * out


class GatedBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, 1)

    def forward(self, x):
        x_exp = Exponential.apply(self.proj(x))
        y = LigerSiLUMulFunction.apply(x_exp, x_exp)
        return self.out(y)


def main():
    torch.manual_seed(0)
    block = GatedBlock(4)
    x = torch.randn(3, 4) * 0.3
    target = torch.randn(3, 1)
    pred = block(x)
    loss = ((pred - target) ** 2).mean()
    loss.backward()
    out = {"pred": pred.detach(), "loss": loss.item()}
    for n, p in block.named_parameters():
        out[n + ".grad"] = p.grad
    return out


if __name__ == "__main__":
    main()
