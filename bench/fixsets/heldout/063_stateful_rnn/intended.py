import torch
import torch.nn as nn
import torch.nn.functional as F


class StatefulRNN(nn.Module):
    """Keras-style stateful RNN: the hidden state persists across calls."""

    def __init__(self, d_in, hidden, batch_size):
        super().__init__()
        self.W_ih = nn.Linear(d_in, hidden)
        self.W_hh = nn.Linear(hidden, hidden, bias=False)
        self.register_buffer("h", torch.zeros(batch_size, hidden))

    def forward(self, x):  # x: (T, B, d_in)
        h = self.h
        outs = []
        for x_t in x:
            h = torch.tanh(self.W_ih(x_t) + self.W_hh(h))
            outs.append(h)
        self.h = h.detach()
        return torch.stack(outs)


def main():
    torch.manual_seed(0)
    rnn = StatefulRNN(3, 6, batch_size=2)
    head = nn.Linear(6, 1)
    opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.1)
    stream = torch.randn(12, 2, 3)
    target = stream[..., :1].cumsum(0) * 0.1
    losses = []
    for chunk, tgt in zip(stream.split(4), target.split(4)):
        pred = head(rnn(chunk))
        loss = F.mse_loss(pred, tgt)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "h": rnn.h.clone(),
            "rnn": {n: p.detach().clone() for n, p in rnn.named_parameters()},
            "head": {n: p.detach().clone() for n, p in head.named_parameters()}}


if __name__ == "__main__":
    main()
