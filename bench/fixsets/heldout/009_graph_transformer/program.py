import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphTransformerLayer(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.msg = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)
        self.ln1 = nn.LayerNorm(dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 2 * dim)
        self.fc2 = nn.Linear(2 * dim, dim)

    def forward(self, x, edge_index):
        src, dst = edge_index
        m = self.msg(self.ln1(x))[src]
        agg = torch.zeros_like(x).index_add_(0, dst, m)
        deg = torch.zeros(x.shape[0]).index_add_(0, dst, torch.ones(dst.shape[0]))
        deg.clamp_(min=1.0)
        agg /= deg.unsqueeze(1)
        out = self.proj(agg)
        out += x
        h = self.fc2(F.gelu(self.fc1(self.ln2(out))))
        h += out
        return h


def main():
    torch.manual_seed(0)
    N, dim = 7, 8
    x = torch.randn(N, dim)
    edge_index = torch.tensor([[0, 1, 2, 3, 4, 5, 6, 0, 2], [1, 2, 3, 4, 5, 6, 0, 3, 5]])
    layers = nn.ModuleList([GraphTransformerLayer(dim) for _ in range(2)])
    readout = nn.Linear(dim, 1)
    opt = torch.optim.AdamW(list(layers.parameters()) + list(readout.parameters()), lr=1e-3, fused=True)
    target = torch.randn(N, 1)
    losses = []
    for _ in range(2):
        h = x
        for layer in layers:
            h = layer(h, edge_index)
        loss = F.mse_loss(readout(h), target)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "h": h.detach(),
            "params": [p.detach().clone() for p in list(layers.parameters()) + list(readout.parameters())]}


if __name__ == "__main__":
    main()
