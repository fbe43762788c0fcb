import torch
import torch.nn as nn


class AdditiveAttention(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.W = nn.Linear(d, d)
        self.v = nn.Linear(d, 1, bias=False)

    def forward(self, keys, query):
        scores = self.v(torch.tanh(self.W(keys) + query[:, None, :])).squeeze(-1)
        a = scores.exp()
        a.data /= a.data.sum(dim=1, keepdim=True)
        return (a[:, :, None] * keys).sum(dim=1), a


def main():
    torch.manual_seed(0)
    attn = AdditiveAttention(4)
    keys = torch.randn(3, 5, 4)
    query = torch.randn(3, 4)
    target = torch.randn(3, 4)
    ctx, a = attn(keys, query)
    loss = ((ctx - target) ** 2).sum()
    loss.backward()
    return {"ctx": ctx.detach(), "attn": a.detach(), "loss": loss.detach(),
            "W.weight.grad": attn.W.weight.grad, "v.weight.grad": attn.v.weight.grad}


if __name__ == "__main__":
    main()
