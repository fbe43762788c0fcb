"""pytorch/pytorch issue #727 ("F.relu(inplace) followed by F.dropout(inplace) breaks
backward pass"): the input batch is a leaf Variable with requires_grad=True and the first
op applied to it is F.relu(x, inplace=True)."""
import numpy as np
import torch
import torch.nn.functional as F
from torch.autograd import Variable


def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    x = Variable(torch.from_numpy(rng.randn(4, 6, 10, 10)).float(), requires_grad=True)
    inp = x
    x = F.relu(x)
    x = F.dropout(x, p=0.1)
    result = torch.sum(x)
    result.backward()
    return {"result": result.detach(), "x.grad": inp.grad}


if __name__ == "__main__":
    main()
