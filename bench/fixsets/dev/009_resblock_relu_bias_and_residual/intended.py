import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualMLPBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim, bias=False)
        self.shift = nn.Parameter(torch.full((dim,), 0.1))
        self.fc2 = nn.Linear(dim, dim)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        h = h + self.shift
        out = F.relu(self.fc2(h))
        out = out + x
        return out


def main():
    torch.manual_seed(0)
    blocks = nn.Sequential(ResidualMLPBlock(6), ResidualMLPBlock(6))
    head = nn.Linear(6, 1)
    params = list(blocks.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    x = torch.randn(10, 6)
    y = torch.randn(10, 1)
    pred = head(blocks(x))
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "pred": pred.detach(),
        "loss": loss.detach(),
        "shift0.grad": blocks[0].shift.grad,
        "fc1.grad": blocks[0].fc1.weight.grad,
        "params": [p.detach().clone() for p in params],
    }


if __name__ == "__main__":
    main()
