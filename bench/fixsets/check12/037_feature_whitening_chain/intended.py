import torch
import torch.nn as nn
import torch.nn.functional as F


class WhitenedEncoder(nn.Module):
    def __init__(self, d_in, d_feat):
        super().__init__()
        self.backbone = nn.Linear(d_in, d_feat)

    def forward(self, x, eps=1e-5):
        f = F.relu(self.backbone(x))
        f = f.sub(f.mean(0)).div(f.std(0) + eps)
        return f


def vicreg_like_loss(a, b):
    inv = F.mse_loss(a, b)
    cov = (a.T @ a) / (a.shape[0] - 1)
    off = cov - torch.diag(torch.diag(cov))
    return inv + 0.01 * off.pow(2).sum()


def main():
    torch.manual_seed(0)
    enc = WhitenedEncoder(7, 6)
    opt = torch.optim.SGD(enc.parameters(), lr=0.05)
    x = torch.randn(16, 7)
    loss = vicreg_like_loss(enc(x), enc(x + 0.05 * torch.randn_like(x)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in enc.parameters()]}


if __name__ == "__main__":
    main()
