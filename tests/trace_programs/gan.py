import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt_g = torch.optim.SGD(G.parameters(), lr=0.01)
opt_d = torch.optim.SGD(D.parameters(), lr=0.01, foreach=True)
real = torch.randn(16, 2)

fake = G(torch.randn(16, 4))
d_fake = D(fake)  # SAVED
d_loss = D(real).mean() - d_fake.mean()
opt_d.zero_grad()
d_loss.backward(retain_graph=True)
opt_d.step()  # MUTATION
g_loss = -d_fake.mean()
opt_g.zero_grad()
g_loss.backward()  # BACKWARD
opt_g.step()
