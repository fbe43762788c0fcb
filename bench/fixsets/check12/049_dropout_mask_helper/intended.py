import torch
import torch.nn as nn
import torch.nn.functional as F


def apply_mask_(h, mask):
    return h * mask


class ConcreteDropoutMLP(nn.Module):
    def __init__(self, d_in, d_h, n_out, p=0.25):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_h)
        self.fc2 = nn.Linear(d_h, n_out)
        self.p = p

    def forward(self, x):
        h = torch.relu(self.fc1(x))
        if self.training:
            mask = (torch.rand_like(h) > self.p).float() / (1 - self.p)
            h = apply_mask_(h, mask)
        return self.fc2(h)


def main():
    torch.manual_seed(0)
    model = ConcreteDropoutMLP(7, 20, 2)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(9, 7)
    y = torch.randn(9, 2)
    model.train()
    loss = F.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
