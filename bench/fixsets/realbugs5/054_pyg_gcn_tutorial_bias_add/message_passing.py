# Plain-PyTorch stand-in for the parts of torch_geometric the tutorial uses
# (MessagePassing with "add" aggregation, add_self_loops, degree).
import inspect

import torch
from torch import nn


def add_self_loops(edge_index, num_nodes):
    loop_index = torch.arange(0, num_nodes, dtype=torch.long, device=edge_index.device)
    loop_index = loop_index.unsqueeze(0).repeat(2, 1)
    edge_index = torch.cat([edge_index, loop_index], dim=1)
    return edge_index, None


def degree(index, num_nodes, dtype=None):
    out = torch.zeros((num_nodes, ), dtype=dtype, device=index.device)
    one = torch.ones((index.size(0), ), dtype=out.dtype, device=out.device)
    return out.scatter_add_(0, index, one)


def scatter_sum(src, index, dim_size):
    index = index.view(-1, 1).expand_as(src)
    size = (dim_size, src.size(1))
    return src.new_zeros(size).scatter_add_(0, index, src)


class MessagePassing(nn.Module):
    def __init__(self, aggr="add"):
        super().__init__()
        assert aggr == "add"
        self.aggr = aggr

    def propagate(self, edge_index, size=None, **kwargs):
        j, i = edge_index  # flow="source_to_target"
        params = inspect.signature(self.message).parameters
        msg_kwargs = {}
        for name in params:
            if name.endswith("_j"):
                msg_kwargs[name] = kwargs[name[:-2]].index_select(0, j)
            elif name.endswith("_i"):
                msg_kwargs[name] = kwargs[name[:-2]].index_select(0, i)
            else:
                msg_kwargs[name] = kwargs[name]
        out = self.message(**msg_kwargs)
        num_nodes = next(v for k, v in kwargs.items() if k == "x").size(0)
        out = scatter_sum(out, i, num_nodes)
        return self.update(out)

    def message(self, x_j):
        return x_j

    def update(self, inputs):
        return inputs
