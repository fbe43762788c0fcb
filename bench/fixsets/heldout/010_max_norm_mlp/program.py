import torch
import torch.nn as nn
import torch.nn.functional as F

MAX_NORM = 0.5


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 4)
        self.drop = nn.Dropout(0.2)

    def forward(self, x):
        x = self.drop(F.relu(self.fc1(x)))
        x = self.drop(F.relu(self.fc2(x)))
        return self.fc3(x)


def apply_max_norm(model, max_norm):
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, nn.Linear):
                m.weight.renorm_(2, 0, max_norm)


def main():
    torch.manual_seed(0)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.5)
    X, y = torch.randn(48, 20), torch.randint(0, 4, (48,))
    losses = []
    for epoch in range(2):
        for xb, yb in zip(X.split(16), y.split(16)):
            loss = F.cross_entropy(model(xb), yb)
            apply_max_norm(model, MAX_NORM)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return {"losses": losses, "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
