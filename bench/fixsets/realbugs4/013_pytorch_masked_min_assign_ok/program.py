"""pytorch/pytorch#24853: a masked assignment of an elementwise min into b + 1, reported as a 1.2
regression ("modified by an inplace operation ... output 0 of AddBackward0"). Under torch 2.13 it
runs, and the gradients are right: AddBackward saved nothing, and the indexing ops saved only the
mask. Kept as the reporter wrote it, inside a small clipped-value helper."""
import torch


def clip_upper(values, upper, active):
    bb = values + 1
    bb[active != 0] = torch.min(bb[active != 0], upper[active != 0])
    return bb


def main():
    torch.manual_seed(0)
    b0 = torch.tensor(5.0, requires_grad=True)
    a = torch.Tensor([1, 0, 0])
    b = torch.zeros(3, requires_grad=True)
    c = torch.ones(3, requires_grad=True)
    bb = clip_upper(b, c, a)
    d = torch.sum(bb) * b0
    d.backward()
    return {"bb": bb.detach(), "d": d.detach(), "b_grad": b.grad, "c_grad": c.grad, "b0_grad": b0.grad}


if __name__ == "__main__":
    main()
