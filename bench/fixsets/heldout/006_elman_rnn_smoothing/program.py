import torch
import torch.nn as nn
import torch.nn.functional as F


class ElmanRNN(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.i2h = nn.Linear(d_in, hidden)
        self.h2h = nn.Linear(hidden, hidden)

    def forward(self, x):  # (T, B, d_in)
        T, B, _ = x.shape
        out = x.new_empty(T, B, self.h2h.out_features)
        h = x.new_zeros(B, self.h2h.out_features)
        for t in range(T):
            h = torch.tanh(self.i2h(x[t]) + self.h2h(h))
            out[t] = h
        return out


def ema_smooth(seq, alpha=0.7):
    smooth = torch.empty_like(seq)
    smooth[0] = seq[0]
    for t in range(1, seq.shape[0]):
        smooth[t] = alpha * smooth[t - 1] + (1 - alpha) * seq[t]
    return smooth


def main():
    torch.manual_seed(0)
    rnn = ElmanRNN(3, 8)
    head = nn.Linear(8, 1)
    opt = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=1e-2)
    x = torch.randn(6, 4, 3)
    y = torch.sin(x.sum(-1, keepdim=True).cumsum(0))
    losses = []
    for _ in range(2):
        pred = ema_smooth(head(rnn(x)))
        loss = F.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "pred": pred.detach(),
            "params": [p.detach().clone() for p in list(rnn.parameters()) + list(head.parameters())]}


if __name__ == "__main__":
    main()
