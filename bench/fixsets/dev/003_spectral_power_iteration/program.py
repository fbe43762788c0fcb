import torch
import torch.nn as nn
import torch.nn.functional as F


def spectral_normalize(W, u, n_iter=2):
    for _ in range(n_iter):
        v = W.t() @ u
        v /= v.norm()
        u = W @ v
        u /= u.norm()
    sigma = torch.dot(u, W @ v)
    return W / sigma, u


class SNLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.5)
        self.bias = nn.Parameter(torch.zeros(d_out))
        self.register_buffer("u", F.normalize(torch.randn(d_out), dim=0))

    def forward(self, x):
        w, u = spectral_normalize(self.weight, self.u)
        self.u = u.detach()
        return F.linear(x, w, self.bias)


def main():
    torch.manual_seed(0)
    disc = nn.Sequential(SNLinear(6, 8), nn.LeakyReLU(0.2), SNLinear(8, 1))
    x = torch.randn(10, 6)
    score = disc(x).mean()
    score.backward()
    return {
        "score": score.detach(),
        "w1.grad": disc[0].weight.grad,
        "w2.grad": disc[2].weight.grad,
        "b2.grad": disc[2].bias.grad,
        "u1": disc[0].u.clone(),
        "u2": disc[2].u.clone(),
    }


if __name__ == "__main__":
    main()
