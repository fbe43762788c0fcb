import torch

x = torch.randn(4, 3, requires_grad=True)
u = x.exp()  # SAVED
u[0] = 666  # MUTATION
loss = u.sum()
loss.backward()  # BACKWARD
