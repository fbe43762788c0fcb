import torch
import torch.nn as nn


class StatefulRNN(nn.Module):
    def __init__(self, n_in, n_hidden, batch):
        super().__init__()
        self.ih = nn.Linear(n_in, n_hidden)
        self.hh = nn.Linear(n_hidden, n_hidden)
        self.h = torch.zeros(batch, n_hidden)

    def reset(self):
        self.h = torch.zeros_like(self.h)

    def forward(self, x):
        self.h = torch.tanh(self.ih(x) + self.hh(self.h))
        return self.h


def main():
    torch.manual_seed(0)
    rnn = StatefulRNN(3, 10, batch=4)
    readout = nn.Linear(10, 1)
    params = list(rnn.parameters()) + list(readout.parameters())
    opt = torch.optim.RMSprop(params, lr=1e-3)
    xs = torch.randn(2, 6, 4, 3)
    ys = torch.randn(2, 6, 4, 1)
    losses = []
    for x, y in zip(xs, ys):
        rnn.reset()
        loss = 0.0
        for t in range(x.shape[0]):
            loss = loss + ((readout(rnn(x[t])) - y[t]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in params]}


if __name__ == "__main__":
    main()
