import numpy as np
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Linear(4, 3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    data = [(torch.randn(6, 4), torch.randint(0, 3, (6,))) for _ in range(3)]

    class_hits = torch.zeros(3)
    history = []  # per-epoch snapshot of the cumulative hit counts, as numpy for plotting
    losses = []
    for epoch in range(3):
        for x, y in data:
            logits = model(x)
            loss = nn.functional.cross_entropy(logits, y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            pred = logits.argmax(1)
            class_hits += torch.bincount(y[pred == y], minlength=3).float()
        np_hits = class_hits.numpy()
        history.append(np_hits)
    return {"losses": losses, "history": [torch.from_numpy(np.array(h)) for h in history],
            "weight": model.weight.detach().clone()}


if __name__ == "__main__":
    main()
