import torch
import torch.nn as nn


class StatefulCell(nn.Module):
    def __init__(self, d_in, d_h):
        super().__init__()
        self.inp = nn.Linear(d_in, d_h)
        self.alpha = nn.Parameter(torch.full((d_h,), 0.5))
        self.register_buffer("prev_h", torch.zeros(1, d_h))

    def forward(self, x):
        h = torch.tanh(self.inp(x) + self.alpha * self.prev_h)
        self.prev_h = h.detach().mean(0, keepdim=True)
        return h


def main():
    torch.manual_seed(0)
    cell = StatefulCell(3, 4)
    opt = torch.optim.SGD(cell.parameters(), lr=0.1)
    chunks = torch.randn(3, 5, 3)
    targets = torch.randn(3, 5, 4)
    losses = []
    for x, y in zip(chunks, targets):
        loss = ((cell(x) - y) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "prev_h": cell.prev_h.clone(), "alpha": cell.alpha.detach().clone(),
            "alpha.grad": cell.alpha.grad, "inp.weight.grad": cell.inp.weight.grad}


if __name__ == "__main__":
    main()
