import torch
import torch.nn as nn
import torch.nn.functional as F


class SparseAutoencoder(nn.Module):
    def __init__(self, d=12, code=24):
        super().__init__()
        self.enc = nn.Linear(d, code)
        self.dec = nn.Linear(code, d)

    def forward(self, x):
        pre = self.enc(x)
        act_penalty = pre.pow(2).mean()
        code = F.relu_(pre)
        return self.dec(code), code, act_penalty


def main():
    torch.manual_seed(0)
    ae = SparseAutoencoder()
    opt = torch.optim.Adam(ae.parameters(), lr=1e-3)
    data = torch.randn(32, 12)
    stats = []
    for _ in range(3):
        recon, code, pen = ae(data)
        loss = F.mse_loss(recon, data) + 1e-2 * pen + 1e-3 * code.abs().sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        stats.append([loss.item(), (code > 0).float().mean().item()])
    return {"stats": stats, "enc.w": ae.enc.weight.detach().clone(), "enc.b": ae.enc.bias.detach().clone(),
            "dec.w": ae.dec.weight.detach().clone(), "dec.b": ae.dec.bias.detach().clone()}


if __name__ == "__main__":
    main()
