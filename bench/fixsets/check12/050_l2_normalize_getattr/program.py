import torch
import torch.nn as nn
import torch.nn.functional as F


class Post:
    @staticmethod
    def identity(z):
        return z

    @staticmethod
    def l2_normalize_(z):
        z.div_(z.norm(dim=1, keepdim=True).clamp_min(1e-8))
        return z


def embed(enc, x, post="l2_normalize_"):
    z = torch.tanh(enc(x))
    return getattr(Post, post)(z)


def main():
    torch.manual_seed(0)
    enc = nn.Linear(10, 6)
    opt = torch.optim.SGD(enc.parameters(), lr=0.1)
    anchors = torch.randn(8, 10)
    positives = anchors + 0.1 * torch.randn(8, 10)
    za, zp = embed(enc, anchors), embed(enc, positives)
    logits = za @ zp.t() / 0.2
    loss = F.cross_entropy(logits, torch.arange(8))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in enc.parameters()]}


if __name__ == "__main__":
    main()
