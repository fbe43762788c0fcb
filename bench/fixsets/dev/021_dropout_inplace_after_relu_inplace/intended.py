import torch
import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, d_in, n_classes, p=0.3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(d_in, 32), nn.ReLU(inplace=True), nn.Dropout(p),
            nn.Linear(32, 32), nn.ReLU(inplace=True), nn.Dropout(p),
        )
        self.classifier = nn.Linear(32, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


def train_epoch(model, opt, batches):
    model.train()
    total = 0.0
    for xb, yb in batches:
        loss = nn.functional.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    return total / len(batches)


def main():
    torch.manual_seed(0)
    model = Classifier(8, 3)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(20, 8)
    y = torch.randint(0, 3, (20,))
    batches = [(x[:10], y[:10]), (x[10:], y[10:])]
    avg = train_epoch(model, opt, batches)
    return {"avg_loss": avg, "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
