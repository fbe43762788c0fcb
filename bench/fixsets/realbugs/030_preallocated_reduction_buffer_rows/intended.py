"""pytorch/pytorch issue #74806 (user report): a reduction written into the slots of a
preallocated buffer, each intermediate result stored in the next slot. Works with
op=torch.add (add saves nothing), fails with op=torch.mul (mul saves the slots it read,
which later slot writes modify in place)."""
import torch
from torch import Tensor


def reduce(x: Tensor, y: Tensor, z: Tensor, op) -> Tensor:
    tensor = [None] * 5
    tensor[0] = x
    tensor[1] = y
    tensor[3] = z

    tensor[2] = op(tensor[0], tensor[1])
    tensor[4] = op(tensor[2], tensor[3])
    return tensor[4].reshape(())


def main():
    torch.manual_seed(0)
    inputs = [
        torch.randn((1,), requires_grad=True),
        torch.randn((1,), requires_grad=True),
        torch.randn((1,), requires_grad=True),
    ]
    out_add = reduce(*inputs, op=torch.add)
    grad_add = torch.autograd.grad(out_add, inputs, torch.randn_like(out_add))

    out_mul = reduce(*inputs, op=torch.mul)
    grad_mul = torch.autograd.grad(out_mul, inputs, torch.randn_like(out_mul))
    return {'out_add': out_add.detach(), 'grad_add': list(grad_add),
            'out_mul': out_mul.detach(), 'grad_mul': list(grad_mul)}


if __name__ == "__main__":
    main()
