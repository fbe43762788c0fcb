import torch

w = torch.randn(3, requires_grad=True)
loss = (w * w).sum()  # SAVED
with torch.no_grad():
    w.mul_(0.5)  # MUTATION
loss.backward()  # BACKWARD
