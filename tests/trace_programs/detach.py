import torch

x = torch.randn(6, requires_grad=True)
y = torch.tanh(x)  # SAVED
y.detach().zero_()  # MUTATION
y.mean().backward()  # BACKWARD
