import torch
import torch.nn as nn


class MultiHeadProjector(nn.Module):
    def __init__(self, d_in, n_heads, d_head):
        super().__init__()
        self.proj = nn.Linear(d_in, n_heads * d_head)
        self.n_heads = n_heads
        self.d_head = d_head

    def forward(self, x):
        h = torch.tanh(self.proj(x))
        heads = h.unflatten(-1, (self.n_heads, self.d_head))
        heads = heads / (heads.norm(dim=-1, keepdim=True) + 1e-6)
        return heads.flatten(-2)


def main():
    torch.manual_seed(0)
    model = MultiHeadProjector(8, 4, 5)
    head = nn.Linear(20, 1)
    opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=1e-3)
    x = torch.randn(10, 8)
    y = torch.randn(10, 1)
    opt.zero_grad()
    loss = ((head(model(x)) - y) ** 2).mean()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in list(model.parameters()) + list(head.parameters())]}


if __name__ == "__main__":
    main()
