import torch
import torch.nn as nn
import torch.nn.functional as F


def mask_pad_(scores, pad_mask):
    scores.masked_fill_(pad_mask[:, None, :], float("-inf"))
    return scores


def renorm_(w, eps=1e-9):
    w.div_(w.sum(-1, keepdim=True) + eps)
    return w


class MaskedAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, pad_mask, keep):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = mask_pad_(q @ k.transpose(1, 2) / q.shape[-1] ** 0.5, pad_mask)
        w = renorm_(torch.softmax(scores, dim=-1) * keep)
        return self.out(w @ v)


def main():
    torch.manual_seed(0)
    attn = MaskedAttention(8)
    opt = torch.optim.SGD(attn.parameters(), lr=0.1)
    x = torch.randn(3, 6, 8)
    pad_mask = torch.arange(6)[None, :] >= torch.tensor([6, 4, 5])[:, None]
    keep = (torch.rand(3, 6, 6) > 0.1).float()
    target = torch.randn(3, 6, 8)
    for _ in range(2):
        loss = F.mse_loss(attn(x, pad_mask, keep), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in attn.parameters()]}


if __name__ == "__main__":
    main()
