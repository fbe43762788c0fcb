import torch
import torch.utils.checkpoint as cp


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.param = torch.nn.Parameter(torch.tensor(1.))
        self.scale = torch.nn.Parameter(torch.tensor(0.5))

    def inner(self, x):
        return (x + self.param)[:].relu_()  # in-place activation on a view

    def forward(self, x):
        y = cp.checkpoint(self.inner, x, use_reentrant=True)
        return y * self.scale


def main():
    torch.manual_seed(0)
    block = Block()
    x = torch.randn(5, requires_grad=True)
    y = block(x)
    loss = y.sum()
    loss.backward()
    return {"y": y.detach(), "x.grad": x.grad, "param.grad": block.param.grad, "scale.grad": block.scale.grad}


if __name__ == "__main__":
    main()
