"""torchgeo LTAE (torchgeo/torchgeo issue #3735): the encoder's nn.Dropout layers were
made inplace=True to save memory; the one after the MLP overwrites the ReLU output
that ReluBackward saved (and the attention dropout overwrites the softmax output)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from ltae import LTAE


def main():
    torch.manual_seed(0)
    model = LTAE(in_channels=16, d_model=16, n_head=4, n_neurons=(16, 32), len_max_seq=5)
    head = nn.Linear(32, 3)
    params = list(model.parameters()) + list(head.parameters())
    optimizer = torch.optim.Adam(params, lr=1e-3)
    losses = []
    for step in range(2):
        x = torch.randn(4, 5, 16)
        y = torch.randint(0, 3, (4,))
        optimizer.zero_grad()
        y_hat = head(model(x))
        loss = F.cross_entropy(y_hat, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses}
    for name, p in list(model.named_parameters()) + [("head." + n, p) for n, p in head.named_parameters()]:
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
