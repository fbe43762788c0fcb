"""pytorch/pytorch#26596: an nn.Embedding with max_norm is used both through
its weight (Line a) and through its forward (Line b). The forward renormalises
the looked-up rows of `weight` in place, which the matmul of Line a saved.
Kept as reported, wrapped in a short training loop.
"""
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    n, d, m = 3, 5, 7

    embedding = nn.Embedding(n, d, max_norm=True)
    W = torch.randn((m, d), requires_grad=True)
    optimizer = torch.optim.Adam(list(embedding.parameters()) + [W], lr=1e-3)

    losses = []
    for idx in (torch.tensor([1, 2]), torch.tensor([0, 2])):
        optimizer.zero_grad()

        a = embedding.weight.clone() @ W.t()  # Line a: weight must be cloned for this to be differentiable
        b = embedding(idx) @ W.t()    # Line b

        out = (a.unsqueeze(0) + b.unsqueeze(1))
        loss = out.sigmoid().prod()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())

    return {'losses': losses, 'embedding.weight': embedding.weight.detach().clone(), 'W': W.detach().clone()}


if __name__ == "__main__":
    main()
