"""treelstm.pytorch main.py (after the PyTorch 0.4 port): GloVe vectors are plugged into the
embedding matrix, then the SICK relatedness model is trained (trainer.py's train loop)."""
import torch
import torch.nn as nn
import torch.optim as optim

from model import SimilarityTreeLSTM
from tree import read_tree


def map_label_to_target(label, num_classes):
    target = torch.zeros(1, num_classes, dtype=torch.float)
    ceil = int(torch.ceil(label))
    floor = int(torch.floor(label))
    if ceil == floor:
        target[0, floor - 1] = 1
    else:
        target[0, floor - 1] = ceil - label
        target[0, ceil - 1] = label - floor
    return target


def main():
    torch.manual_seed(0)
    vocab_size, input_dim, mem_dim, hidden_dim, num_classes = 10, 6, 5, 4, 5
    model = SimilarityTreeLSTM(vocab_size, input_dim, mem_dim, hidden_dim, num_classes,
                               sparsity=False, freeze=False)
    criterion = nn.KLDivLoss(reduction="batchmean")

    # for words common to dataset vocab and GLOVE, use GLOVE vectors
    glove_emb = torch.randn(vocab_size, input_dim)
    emb = torch.zeros(vocab_size, input_dim, dtype=torch.float)
    emb.normal_(0, 0.05)
    for idx in range(4):
        emb[idx].zero_()
    for word in range(4, vocab_size):
        emb[word] = glove_emb[word]
    # plug these into embedding matrix inside model
    model.emb.weight.data.copy_(emb)

    optimizer = optim.Adagrad(filter(lambda p: p.requires_grad, model.parameters()), lr=0.05)
    dataset = [
        ([2, 0, 2], torch.tensor([4, 5, 6]), [0, 1], torch.tensor([7, 8]), torch.tensor(3.6)),
        ([0, 1, 1], torch.tensor([5, 9, 4]), [2, 0], torch.tensor([6, 7]), torch.tensor(2.2)),
    ]
    losses = []
    for epoch in range(2):
        optimizer.zero_grad()
        total = 0.0
        for lparents, linput, rparents, rinput, label in dataset:
            ltree, rtree = read_tree(lparents), read_tree(rparents)
            target = map_label_to_target(label, num_classes)
            output = model(ltree, linput, rtree, rinput)
            loss = criterion(output, target)
            total += loss.item()
            loss.backward()
        optimizer.step()
        losses.append(total)
    return {"losses": losses, "emb": model.emb.weight.detach().clone(),
            "wp": model.similarity.wp.weight.detach().clone(),
            "ioux": model.childsumtreelstm.ioux.weight.detach().clone()}


if __name__ == "__main__":
    main()
