import torch

x = torch.randn(5, requires_grad=True)
a = x * 2
b = a.sin()  # SAVED
a += 1  # MUTATION
b.sum().backward()  # BACKWARD
