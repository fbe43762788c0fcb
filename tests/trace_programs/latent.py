import atexit

import torch

w = torch.randn(3, requires_grad=True)
y = torch.sigmoid(w * 2)  # SAVED
metric = y.sum()  # its graph stays alive (the exit handler holds it) and no backward ever uses it
y.mul_(2)  # MUTATION
atexit.register(lambda: print("final metric", round(metric.item(), 3)))
