import sys

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(inplace=True), nn.Dropout(0.1), nn.Linear(16, 3))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
for step in range(5):
    opt.zero_grad()
    out = model(x)
    loss = nn.functional.cross_entropy(out, y)
    loss.backward()
    opt.step()
    with torch.no_grad():
        for p in model.parameters():
            p.clamp_(-1, 1)
h = torch.randn(3, requires_grad=True).exp().clone()
h.add_(1)
h.sum().backward()
grads = torch.func.grad(lambda t: t.sin().sum())(torch.randn(3))
print("args", sys.argv[1:], "loss", round(loss.item(), 4), "grads", tuple(grads.shape))
sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 and sys.argv[1] == "--exit" else 0)
