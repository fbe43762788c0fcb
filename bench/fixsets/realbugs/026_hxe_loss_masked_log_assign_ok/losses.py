import torch
from typing import List


class HierarchicalLLLoss(torch.nn.Module):
    """
    Hierachical log likelihood loss.

    The input is a flat probability vector in which each entry corresponds to
    a leaf node of the tree.

    Args (reduced from the nltk-based constructor of better_mistakes):
        edges_from_leaf: for each leaf, the edge indices on its path to the root (bottom-up).
        leaf_indices: for each edge, the indices of the leaves below it.
        edge_weights: for each edge, the weight of that edge.
    """

    def __init__(self, edges_from_leaf: List[List[int]], leaf_indices: List[List[int]], edge_weights: List[float]):
        super(HierarchicalLLLoss, self).__init__()

        num_classes = len(edges_from_leaf)
        # get max size for the number of edges to the root
        num_edges = max([len(p) for p in edges_from_leaf])

        # save all relevant information as pytorch tensors for computing the loss on the gpu
        self.onehot_den = torch.nn.Parameter(torch.zeros([num_classes, num_classes, num_edges]), requires_grad=False)
        self.onehot_num = torch.nn.Parameter(torch.zeros([num_classes, num_classes, num_edges]), requires_grad=False)
        self.weights = torch.nn.Parameter(torch.zeros([num_classes, num_edges]), requires_grad=False)

        # one hot encoding of the numerators and denominators and store weights
        with torch.no_grad():
            for i in range(num_classes):
                for j, k in enumerate(edges_from_leaf[i]):
                    self.onehot_num[i, leaf_indices[k], j] = 1.0
                    self.weights[i, j] = edge_weights[k]
                for j, k in enumerate(edges_from_leaf[i][1:]):
                    self.onehot_den[i, leaf_indices[k], j] = 1.0
                self.onehot_den[i, :, len(edges_from_leaf[i]) - 1] = 1.0  # the last denominator is the sum of all leaves

    def forward(self, inputs, target):
        """
        Foward pass, computing the loss.

        Args:
            inputs: Class _probabilities_ ordered as the input hierarchy.
            target: The index of the ground truth class.
        """
        # add a sweet dimension to inputs
        inputs = torch.unsqueeze(inputs, 1)
        # sum of probabilities for numerators
        num = torch.squeeze(torch.bmm(inputs, self.onehot_num[target]))
        # sum of probabilities for denominators
        den = torch.squeeze(torch.bmm(inputs, self.onehot_den[target]))
        # compute the neg logs for non zero numerators and store in there
        idx = num != 0
        num[idx] = -torch.log(num[idx] / den[idx])
        # weighted sum of all logs for each path (we flip because it is numerically more stable)
        num = torch.sum(torch.flip(self.weights[target] * num, dims=[1]), dim=1)
        # return sum of losses / batch size
        return torch.mean(num)


class HierarchicalCrossEntropyLoss(HierarchicalLLLoss):
    """
    Combines softmax with HierachicalNLLLoss. Note that the softmax is flat.
    """

    def __init__(self, edges_from_leaf, leaf_indices, edge_weights):
        super(HierarchicalCrossEntropyLoss, self).__init__(edges_from_leaf, leaf_indices, edge_weights)

    def forward(self, inputs, index):
        return super(HierarchicalCrossEntropyLoss, self).forward(torch.nn.functional.softmax(inputs, 1), index)
