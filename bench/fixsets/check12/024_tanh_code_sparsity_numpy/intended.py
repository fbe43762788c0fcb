import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class AutoEncoder(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.enc = nn.Linear(d, k)
        self.dec = nn.Linear(k, d)

    def forward(self, x):
        code = torch.tanh(self.enc(x))
        return code, self.dec(code)


def training_step(ae, opt, x):
    code, recon = ae(x)
    loss = F.mse_loss(recon, x)
    c = code.detach().numpy().copy()
    c[np.abs(c) < 0.1] = 0.0
    sparsity = float((c == 0).mean())
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), sparsity


def main():
    torch.manual_seed(0)
    ae = AutoEncoder(10, 6)
    opt = torch.optim.Adam(ae.parameters(), lr=1e-2)
    x = torch.randn(16, 10)
    stats = [training_step(ae, opt, x) for _ in range(2)]
    return {"stats": stats, "params": [p.detach().clone() for p in ae.parameters()]}


if __name__ == "__main__":
    main()
