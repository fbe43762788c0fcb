import torch
import torch.nn as nn
import torch.nn.functional as F


class QuantLinear(nn.Module):
    def __init__(self, d_in, d_out, levels=3):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d_out, d_in) * 0.8)
        self.bias = nn.Parameter(torch.zeros(d_out))
        self.levels = levels

    def forward(self, x):
        w = torch.tanh(self.weight)
        w.data.copy_(torch.round(w.data * self.levels) / self.levels)
        return F.linear(x, w, self.bias)


def main():
    torch.manual_seed(0)
    model = nn.Sequential(QuantLinear(5, 8), nn.ReLU(), QuantLinear(8, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(16, 5)
    y = torch.randint(0, 2, (16,))
    for _ in range(2):
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"out": out.detach(), "loss": loss.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
