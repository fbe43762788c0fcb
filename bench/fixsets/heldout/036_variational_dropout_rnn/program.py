import torch
import torch.nn as nn
import torch.nn.functional as F


class DropRNN(nn.Module):
    def __init__(self, d_in=4, hidden=10, keep=0.8):
        super().__init__()
        self.W_x = nn.Linear(d_in, hidden)
        self.W_h = nn.Linear(hidden, hidden, bias=False)
        self.readout = nn.Linear(hidden, 1)
        self.keep = keep

    def forward(self, x):
        T, B, _ = x.shape
        h = x.new_zeros(B, self.W_h.in_features)
        keep_probs = torch.full_like(h, self.keep)
        mask = torch.empty_like(h)
        for t in range(T):
            torch.bernoulli(keep_probs, out=mask)
            mask.div_(self.keep)
            h = torch.tanh(self.W_x(x[t]) + self.W_h(h * mask))
        return self.readout(h)


def main():
    torch.manual_seed(0)
    rnn = DropRNN()
    opt = torch.optim.Adam(rnn.parameters(), lr=1e-2)
    x = torch.randn(5, 6, 4)
    y = x.sum(dim=(0, 2)).unsqueeze(1) * 0.1
    pred = rnn(x)
    loss = F.mse_loss(pred, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"pred": pred.detach(), "loss": loss.item(),
            "params": {n: p.detach().clone() for n, p in rnn.named_parameters()}}


if __name__ == "__main__":
    main()
