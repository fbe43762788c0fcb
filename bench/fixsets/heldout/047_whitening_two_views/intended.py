import torch
import torch.nn as nn
import torch.nn.functional as F


class Whiten(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.register_buffer("inv_std", torch.ones(dim))

    def forward(self, x):
        with torch.no_grad():
            inv_std = torch.rsqrt(x.var(dim=0, unbiased=False) + self.eps)
            self.inv_std.copy_(inv_std)
        return (x - x.mean(dim=0)) * inv_std


class Encoder(nn.Module):
    def __init__(self, d_in=10, d=8):
        super().__init__()
        self.fc = nn.Linear(d_in, d)
        self.white = Whiten(d)

    def forward(self, x):
        return self.white(self.fc(x))


def main():
    torch.manual_seed(0)
    enc = Encoder()
    opt = torch.optim.SGD(enc.parameters(), lr=0.1)
    x = torch.randn(16, 10)
    v1 = x + 0.1 * torch.randn_like(x)
    v2 = x * 1.3 + 0.5
    z1, z2 = enc(v1), enc(v2)
    loss = F.mse_loss(z1, z2) + 0.01 * (z1 @ z1.t()).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"z1": z1.detach(), "z2": z2.detach(), "loss": loss.item(),
            "inv_std": enc.white.inv_std.clone(), "fc.weight": enc.fc.weight.detach().clone(),
            "fc.bias": enc.fc.bias.detach().clone()}


if __name__ == "__main__":
    main()
