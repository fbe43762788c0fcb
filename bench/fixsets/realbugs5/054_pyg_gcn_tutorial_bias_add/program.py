# The GCNConv of PyG's "Creating Message Passing Networks" tutorial (pyg-team/pytorch_geometric
# issue 8953 reports its `out += self.bias` and the inf-masking write), trained for one step as a
# two-layer node classifier.
import torch
import torch.nn.functional as F
from torch.nn import Linear, Parameter

from message_passing import MessagePassing, add_self_loops, degree


class GCNConv(MessagePassing):
    def __init__(self, in_channels, out_channels):
        super().__init__(aggr='add')  # "Add" aggregation (Step 5).
        self.lin = Linear(in_channels, out_channels, bias=False)
        self.bias = Parameter(torch.empty(out_channels))

        self.reset_parameters()

    def reset_parameters(self):
        self.lin.reset_parameters()
        self.bias.data.zero_()

    def forward(self, x, edge_index):
        # x has shape [N, in_channels]
        # edge_index has shape [2, E]

        # Step 1: Add self-loops to the adjacency matrix.
        edge_index, _ = add_self_loops(edge_index, num_nodes=x.size(0))

        # Step 2: Linearly transform node feature matrix.
        x = self.lin(x)

        # Step 3: Compute normalization.
        row, col = edge_index
        deg = degree(col, x.size(0), dtype=x.dtype)
        deg_inv_sqrt = deg.pow(-0.5)
        deg_inv_sqrt[deg_inv_sqrt == float('inf')] = 0
        norm = deg_inv_sqrt[row] * deg_inv_sqrt[col]

        # Step 4-5: Start propagating messages.
        out = self.propagate(edge_index, x=x, norm=norm)

        # Step 6: Apply a final bias vector.
        out += self.bias

        return out

    def message(self, x_j, norm):
        # x_j has shape [E, out_channels]

        # Step 4: Normalize node features.
        return norm.view(-1, 1) * x_j


class GCN(torch.nn.Module):
    def __init__(self, in_channels, hidden_channels, out_channels):
        super().__init__()
        self.conv1 = GCNConv(in_channels, hidden_channels)
        self.conv2 = GCNConv(hidden_channels, out_channels)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index)
        x = F.relu(x)
        x = F.dropout(x, p=0.5, training=self.training)
        x = self.conv2(x, edge_index)
        return F.log_softmax(x, dim=1)


def main():
    torch.manual_seed(0)
    edge_index = torch.tensor([[0, 1, 1, 2, 2, 3, 4, 5],
                               [1, 0, 2, 1, 3, 2, 5, 4]])
    x = torch.randn(6, 4)
    y = torch.tensor([0, 0, 1, 1, 2, 2])
    train_mask = torch.tensor([True, False, True, False, True, True])

    model = GCN(4, 8, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)

    model.train()
    optimizer.zero_grad()
    out = model(x, edge_index)
    loss = F.nll_loss(out[train_mask], y[train_mask])
    loss.backward()
    grads = {"grad_" + n: p.grad.clone() for n, p in model.named_parameters()}
    optimizer.step()

    result = {"out": out.detach(), "loss": loss.detach()}
    result.update(grads)
    for n, p in model.named_parameters():
        result[n] = p.detach().clone()
    return result


if __name__ == "__main__":
    main()
