import torch
import torch.nn as nn
import torch.nn.functional as F

from scatter import scatter_softmax, scatter_add


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.att_src = nn.Parameter(torch.randn(out_dim) * 0.1)
        self.att_dst = nn.Parameter(torch.randn(out_dim) * 0.1)

    def forward(self, x, edge_index):
        src, dst = edge_index
        h = self.lin(x)
        score = F.leaky_relu((h[src] * self.att_src).sum(-1) + (h[dst] * self.att_dst).sum(-1), 0.2)
        alpha = scatter_softmax(score, dst)
        msg = h[src] * alpha.unsqueeze(-1)
        out = torch.stack([scatter_add(msg[:, k], dst, dim_size=x.size(0)) for k in range(msg.size(1))], 1)
        return out


def main():
    torch.manual_seed(0)
    x = torch.randn(5, 3)
    edge_index = torch.tensor([[0, 1, 2, 3, 4, 1, 2], [1, 0, 1, 2, 3, 4, 4]])
    y = torch.tensor([0, 1, 0, 1, 1])
    layer = GATLayer(3, 2)
    optimizer = torch.optim.Adam(layer.parameters(), lr=0.01)
    logits = layer(x, edge_index)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"logits": logits.detach(), "loss": loss.item()}
    for n, p in layer.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
