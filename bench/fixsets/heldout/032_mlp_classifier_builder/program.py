import torch
import torch.nn as nn
import torch.nn.functional as F


def make_classifier(d_in, n_classes, hidden=(32, 16), p=0.3):
    layers = []
    for h in hidden:
        layers += [nn.Linear(d_in, h), nn.ReLU(inplace=True), nn.Dropout(p, inplace=True)]
        d_in = h
    layers.append(nn.Linear(d_in, n_classes))
    return nn.Sequential(*layers)


def main():
    torch.manual_seed(0)
    clf = make_classifier(10, 3)
    opt = torch.optim.Adam(clf.parameters(), lr=1e-3)
    X = torch.randn(40, 10)
    y = torch.randint(0, 3, (40,))
    clf.train()
    running = 0.0
    for start in range(0, 40, 20):
        xb, yb = X[start:start + 20], y[start:start + 20]
        loss = F.cross_entropy(clf(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        running += loss.item()
    clf.eval()
    with torch.no_grad():
        val_logits = clf(X)
    return {"train_loss": running / 2, "val_logits": val_logits,
            "params": [p.detach().clone() for p in clf.parameters()]}


if __name__ == "__main__":
    main()
