"""pytorch/pytorch#61946: overwrite one element of t * t, then backpropagate (grad of t[0] is 0 by design)."""
import numpy as np
import torch


def func(t, value):
    a = t * t
    a[0] = value
    return a.sum()


def main():
    torch.manual_seed(0)
    array = np.array([1, 2, 3, 4], dtype='float32')
    value = np.array([5.], dtype='float32')

    tt = torch.tensor(array, requires_grad=True)
    tvalue = torch.tensor(value, requires_grad=True)

    l1 = func(tt, tvalue)
    l1.backward()
    return {"loss": l1.detach(), "grad_tt": tt.grad, "grad_tvalue": tvalue.grad}


if __name__ == "__main__":
    main()
