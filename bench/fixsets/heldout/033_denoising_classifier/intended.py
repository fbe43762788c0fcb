import torch
import torch.nn as nn
import torch.nn.functional as F


def add_gaussian_noise_(x, std):
    x = x + torch.randn_like(x) * std
    return x


class DenoisingClassifier(nn.Module):
    def __init__(self, d_in=8, hidden=24, n_classes=3, noise_std=0.3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, n_classes)
        self.noise_std = noise_std

    def forward(self, x):
        h = torch.tanh(self.fc1(x))
        if self.training:
            h = add_gaussian_noise_(h, self.noise_std)
        h = torch.tanh(self.fc2(h))
        return self.out(h)


def main():
    torch.manual_seed(0)
    model = DenoisingClassifier()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X, y = torch.randn(30, 8), torch.randint(0, 3, (30,))
    model.train()
    losses = []
    for _ in range(3):
        loss = F.cross_entropy(model(X), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        eval_logits = model(X)
    return {"losses": losses, "eval_logits": eval_logits,
            "params": {k: v.detach().clone() for k, v in model.named_parameters()}}


if __name__ == "__main__":
    main()
