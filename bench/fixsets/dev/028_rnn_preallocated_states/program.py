import torch
import torch.nn as nn


class ElmanRNN(nn.Module):
    def __init__(self, d_in, d_h):
        super().__init__()
        self.W_xh = nn.Parameter(torch.randn(d_in, d_h) * 0.3)
        self.W_hh = nn.Parameter(torch.randn(d_h, d_h) * 0.3)
        self.b = nn.Parameter(torch.zeros(d_h))

    def forward(self, xs):
        T, B, _ = xs.shape
        states = torch.zeros(T + 1, B, self.W_hh.shape[0])
        for t in range(T):
            states[t + 1] = torch.tanh(xs[t] @ self.W_xh + states[t] @ self.W_hh + self.b)
        return states[1:]


def main():
    torch.manual_seed(0)
    rnn = ElmanRNN(3, 4)
    xs = torch.randn(5, 2, 3)
    target = torch.randn(2, 4)
    states = rnn(xs)
    loss = ((states[-1] - target) ** 2).sum() + 0.1 * states.abs().mean()
    loss.backward()
    return {"states": states.detach(), "loss": loss.detach(),
            "W_xh.grad": rnn.W_xh.grad, "W_hh.grad": rnn.W_hh.grad, "b.grad": rnn.b.grad}


if __name__ == "__main__":
    main()
