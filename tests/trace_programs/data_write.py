import torch

w = torch.randn(3, requires_grad=True)
loss = (w * w).sum()  # SAVED
w.data.mul_(2.0)  # MUTATION
loss.backward()  # BACKWARD
print("grad", w.grad)
