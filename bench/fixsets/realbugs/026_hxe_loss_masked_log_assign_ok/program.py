"""making-better-mistakes (fiveai): training a classifier with the hierarchical cross-entropy
(HXE) loss. The loss overwrites the non-zero numerators in place with their neg-log ratio
(`num[idx] = -torch.log(num[idx] / den[idx])`); reported to fail with torch 1.2, safe now."""
import math

import torch

from losses import HierarchicalCrossEntropyLoss

# hierarchy: root -> {animal -> {cat, dog, horse}, vehicle -> {car, bus}}
# edges: 0 animal, 1 vehicle, 2 cat, 3 dog, 4 horse, 5 car, 6 bus ; leaves 0..4 = cat dog horse car bus
EDGES_FROM_LEAF = [[2, 0], [3, 0], [4, 0], [5, 1], [6, 1]]
LEAF_INDICES = [[0, 1, 2], [3, 4], [0], [1], [2], [3], [4]]
ALPHA = 0.5
# HXE weights exp(-alpha * height) of each edge (leaf edges height 0, upper edges height 1)
EDGE_WEIGHTS = [math.exp(-ALPHA * 1), math.exp(-ALPHA * 1)] + [1.0] * 5


def main():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.ReLU(), torch.nn.Linear(16, 5))
    loss_function = HierarchicalCrossEntropyLoss(EDGES_FROM_LEAF, LEAF_INDICES, EDGE_WEIGHTS)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    losses = []
    for it in range(3):
        embeddings = torch.randn(8, 6)
        target = torch.randint(0, 5, (8,))
        output = model(embeddings)
        loss = loss_function(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {'losses': losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
        out['grad.' + name] = p.grad.detach().clone()
    return out


if __name__ == "__main__":
    main()
