import torch
import torch.nn as nn


class LSTMCell(nn.Module):
    def __init__(self, d_in, d_h, forget_bias=1.0):
        super().__init__()
        self.ih = nn.Linear(d_in, 3 * d_h)
        self.hh = nn.Linear(d_h, 3 * d_h, bias=False)
        self.cand = nn.Linear(d_in + d_h, d_h)
        self.forget_bias = forget_bias

    def forward(self, x, state):
        h, c = state
        gates = torch.sigmoid(self.ih(x) + self.hh(h))
        H = h.shape[1]
        i, f, o = gates[:, :H], gates[:, H:2 * H], gates[:, 2 * H:]
        f += self.forget_bias
        g = torch.tanh(self.cand(torch.cat([x, h], dim=1)))
        c = f * c + i * g
        h = o * torch.tanh(c)
        return h, c


def main():
    torch.manual_seed(0)
    cell = LSTMCell(4, 5, forget_bias=0.5)
    readout = nn.Linear(5, 1)
    xs = torch.randn(6, 3, 4)
    h = torch.zeros(3, 5)
    c = torch.zeros(3, 5)
    for x in xs:
        h, c = cell(x, (h, c))
    y = readout(h)
    loss = y.square().mean()
    loss.backward()
    return {
        "h": h.detach(),
        "c": c.detach(),
        "loss": loss.detach(),
        "ih.weight.grad": cell.ih.weight.grad,
        "hh.weight.grad": cell.hh.weight.grad,
        "cand.weight.grad": cell.cand.weight.grad,
    }


if __name__ == "__main__":
    main()
