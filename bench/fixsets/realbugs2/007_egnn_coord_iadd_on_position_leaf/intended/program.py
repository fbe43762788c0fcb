"""EGNN (vgsatorras/egnn, issue #3) used as an energy model whose forces are -dE/dx:
E_GCL.coord_model() does `coord += agg`, and for the first layer `coord` is the
caller's position tensor, a leaf that requires grad."""
import torch
import torch.nn.functional as F

from egnn_clean import EGNN, get_edges


def main():
    torch.manual_seed(0)
    n_nodes, n_feat = 5, 3
    edges = [torch.LongTensor(e) for e in get_edges(n_nodes)]
    egnn = EGNN(in_node_nf=n_feat, hidden_nf=8, out_node_nf=1, in_edge_nf=1, n_layers=2)
    optimizer = torch.optim.Adam(egnn.parameters(), lr=1e-3)

    h = torch.randn(n_nodes, n_feat)
    edge_attr = torch.randn(len(edges[0]), 1)
    target_energy = torch.tensor(0.5)
    target_forces = torch.randn(n_nodes, 3)
    energies, force_list = [], []
    for step in range(2):
        x = torch.randn(n_nodes, 3).requires_grad_(True)
        optimizer.zero_grad()
        h_out, x_out = egnn(h, x, edges, edge_attr)
        energy = h_out.sum() + 0.1 * (x_out - x.detach()).pow(2).sum()
        forces = -torch.autograd.grad(energy, x, create_graph=True)[0]
        loss = (energy - target_energy) ** 2 + F.mse_loss(forces, target_forces)
        loss.backward()
        optimizer.step()
        energies.append(energy.detach())
        force_list.append(forces.detach())
    out = {"energies": energies, "forces": force_list}
    for name, p in egnn.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
