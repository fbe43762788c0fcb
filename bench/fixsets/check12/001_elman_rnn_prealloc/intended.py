import torch
import torch.nn as nn


class ElmanRNN(nn.Module):
    def __init__(self, n_in, n_hidden):
        super().__init__()
        self.w_ih = nn.Linear(n_in, n_hidden)
        self.w_hh = nn.Linear(n_hidden, n_hidden, bias=False)

    def forward(self, x):
        T, B, _ = x.shape
        h = [torch.zeros(B, self.w_hh.out_features)]
        for t in range(T):
            h.append(torch.tanh(self.w_ih(x[t]) + self.w_hh(h[t])))
        return torch.stack(h[1:])


def main():
    torch.manual_seed(0)
    rnn = ElmanRNN(5, 8)
    head = nn.Linear(8, 1)
    opt = torch.optim.SGD(list(rnn.parameters()) + list(head.parameters()), lr=0.1)
    x = torch.randn(6, 3, 5)
    y = torch.randn(3, 1)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        hs = rnn(x)
        loss = ((head(hs[-1]) - y) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {
        "losses": losses,
        "w_ih": rnn.w_ih.weight.detach().clone(),
        "w_hh": rnn.w_hh.weight.detach().clone(),
        "head": head.weight.detach().clone(),
    }


if __name__ == "__main__":
    main()
