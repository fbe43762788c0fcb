import torch
import torch.nn as nn
import torch.nn.functional as F


class SeqClassifier(nn.Module):
    def __init__(self, n_in, n_hidden, n_cls):
        super().__init__()
        self.cell = nn.LSTMCell(n_in, n_hidden)
        self.head = nn.Linear(n_hidden, n_cls)
        self.n_hidden = n_hidden

    def forward(self, x):
        T, B, _ = x.shape
        h = x.new_zeros(B, self.n_hidden)
        c = x.new_zeros(B, self.n_hidden)
        outs = []
        for t in range(T):
            h, c = self.cell(x[t], (h, c))
            outs.append(h)
        hs = torch.stack(outs)
        return self.head(hs.mean(0))


def main():
    torch.manual_seed(0)
    model = SeqClassifier(4, 12, 3)
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    x = torch.randn(7, 5, 4)
    y = torch.randint(0, 3, (5,))
    losses = []
    for _ in range(3):
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
