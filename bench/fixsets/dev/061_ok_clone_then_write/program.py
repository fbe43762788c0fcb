import torch
import torch.nn as nn


class OrthoLinear(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.W = nn.Parameter(torch.randn(d_in, d_out) * 0.4)
        self.b = nn.Parameter(torch.zeros(d_out))

    def forward(self, x):
        out = x @ self.W
        out.add_(self.b)
        return out

    def ortho_penalty(self):
        gram = self.W.T @ self.W
        gram.diagonal().sub_(1.0)
        return gram.pow(2).sum()


def main():
    torch.manual_seed(0)
    layer = OrthoLinear(5, 4)
    x = torch.randn(10, 5)
    keep = torch.rand(10, 4) > 0.2

    h = layer(x)
    gates = torch.sigmoid(h)
    masked = gates.clone()
    masked[~keep] = 0.0
    scaled = 3.0 * h
    scaled[:, 0] = 0.0
    y = (masked * gates).sum() + scaled.sum() + 0.1 * layer.ortho_penalty()
    y.backward()
    return {"y": y.detach(), "masked": masked.detach(), "W.grad": layer.W.grad, "b.grad": layer.b.grad}


if __name__ == "__main__":
    main()
