import torch
from torch.autograd import Function


class InPlaceAdd(Function):
    @staticmethod
    def forward(ctx, a, b):
        a[1:2] += b
        return a

    @staticmethod
    def backward(ctx, grad_output):
        return grad_output, grad_output[1:2].reshape(1)


add_in_place = InPlaceAdd.apply


def main():
    torch.manual_seed(0)
    a = torch.ones(2, requires_grad=True)
    b = torch.ones(1, requires_grad=True)
    w = torch.randn(2, requires_grad=True)
    c = add_in_place(a + 1, b)
    loss = (c * w).sum()
    loss.backward()
    a2 = torch.ones(2, requires_grad=True)
    b2 = torch.ones(1, requires_grad=True)
    c2 = add_in_place(a2, b2.clone() * 1)
    c2.sum().backward()
    return {"c": c.detach(), "loss": loss.item(), "a.grad": a.grad, "b.grad": b.grad, "w.grad": w.grad,
            "c2": c2.detach(), "a2.grad": a2.grad, "b2.grad": b2.grad}


if __name__ == "__main__":
    main()
