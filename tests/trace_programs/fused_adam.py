import torch
from torch import nn

torch.manual_seed(0)
D = nn.Linear(3, 1)
opt = torch.optim.Adam(D.parameters(), lr=0.1, fused=True)
x = torch.randn(8, 3, requires_grad=True)
out = D(x).sum()  # SAVED
D(x).sum().backward()
opt.step()  # MUTATION
out.backward()  # BACKWARD
