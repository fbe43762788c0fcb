"""Rose-STL-Lab/torchTS torchts/utils/graph.py + torchts/utils/data.py (random_walk, sparse_matrix, concat).
scipy.sparse is replaced by numpy here (scipy is not installed); the matrices are the same."""
import numpy as np
import torch


def random_walk(adj_mx):
    adj_mx = np.asarray(adj_mx, dtype=np.float64)
    d = np.array(adj_mx.sum(1))
    with np.errstate(divide="ignore"):
        d_inv = np.power(d, -1).flatten()
    d_inv[np.isinf(d_inv)] = 0.0
    d_mat_inv = np.diag(d_inv)
    random_walk_mx = d_mat_inv.dot(adj_mx)
    return random_walk_mx


def reverse_random_walk(adj_mx):
    return random_walk(np.transpose(adj_mx))


def sparse_matrix(L):
    row, col = np.nonzero(L)
    indices = np.column_stack((row, col))
    # this is to ensure row-major ordering to equal torch.sparse.sparse_reorder(L)
    indices = indices[np.lexsort((indices[:, 0], indices[:, 1]))]
    data = L[indices[:, 0], indices[:, 1]]
    L = torch.sparse_coo_tensor(indices.T, data, L.shape, dtype=torch.float32, check_invariants=True)
    return L


def concat(a, b):
    return torch.cat([a, b.unsqueeze(0)], dim=0)
