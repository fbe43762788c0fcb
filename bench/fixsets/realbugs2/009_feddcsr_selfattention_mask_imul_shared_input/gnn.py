import torch
import torch.nn as nn
import torch.nn.functional as F
import config


class GCNLayer(nn.Module):
    def __init__(self, args):
        super(GCNLayer, self).__init__()
        self.weight = nn.Parameter(torch.empty(config.hidden_size, config.hidden_size))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, fea, adj):
        support = torch.mm(fea, self.weight)
        out = torch.spmm(adj, support) if adj.is_sparse else torch.mm(adj, support)
        return F.relu(out)
