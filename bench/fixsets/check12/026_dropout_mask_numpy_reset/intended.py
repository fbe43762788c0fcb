import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedMLP(nn.Module):
    def __init__(self, d_in, d_h, n_cls, batch):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_h)
        self.fc2 = nn.Linear(d_h, n_cls)
        self.mask = torch.ones(batch, d_h)
        self.mask_np = self.mask.numpy()

    def resample(self, rng, p=0.3):
        self.mask_np[...] = (rng.random(self.mask_np.shape) > p) / (1 - p)

    def forward(self, x):
        h = torch.relu(self.fc1(x)) * self.mask.clone()
        return self.fc2(h)


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    model = MaskedMLP(6, 16, 3, batch=10)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(10, 6)
    y = torch.randint(0, 3, (10,))
    history = []
    for _ in range(2):
        model.resample(rng)
        loss = F.cross_entropy(model(x), y)
        model.mask_np[...] = 1.0  # no dropout for the monitoring pass
        with torch.no_grad():
            clean_acc = (model(x).argmax(-1) == y).float().mean().item()
        opt.zero_grad()
        loss.backward()
        opt.step()
        history.append((loss.item(), clean_acc))
    return {"history": history, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
