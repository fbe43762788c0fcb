import torch


def squash(t):
    return torch.sigmoid(t)  # SAVED


x = torch.randn(3, 4, requires_grad=True)
h = squash(x)
alias = h
row = alias[1]
row.fill_(0.0)  # MUTATION
h.sum().backward()  # BACKWARD
