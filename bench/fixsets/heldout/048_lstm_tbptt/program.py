import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMCellManual(nn.Module):
    def __init__(self, d_in, hidden, cell_clip=3.0):
        super().__init__()
        self.hidden = hidden
        self.x2g = nn.Linear(d_in, 4 * hidden)
        self.h2g = nn.Linear(hidden, 4 * hidden, bias=False)
        self.cell_clip = cell_clip

    def forward(self, x, state):
        h, c = state
        gates = self.x2g(x) + self.h2g(h)
        i, f, g, o = gates.chunk(4, dim=1)
        i, f, o = torch.sigmoid(i), torch.sigmoid(f), torch.sigmoid(o)
        g = torch.tanh(g)
        c = f * c + i * g
        c.clamp_(-self.cell_clip, self.cell_clip)
        h = o * torch.tanh(c)
        return h, c


def main():
    torch.manual_seed(0)
    B, H = 3, 6
    cell = LSTMCellManual(2, H)
    head = nn.Linear(H, 1)
    params = list(cell.parameters()) + list(head.parameters())
    opt = torch.optim.RMSprop(params, lr=1e-2)
    xs = torch.randn(12, B, 2) * 3
    ys = xs[..., :1].cumsum(0) * 0.1
    dones = torch.zeros(12, B)
    dones[5, 1] = 1.0
    h, c = torch.zeros(B, H), torch.zeros(B, H)
    losses = []
    for start in range(0, 12, 4):
        loss = 0.0
        for t in range(start, start + 4):
            h, c = cell(xs[t], (h, c))
            loss = loss + F.mse_loss(head(h), ys[t])
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        h, c = h.detach(), c.detach()
        keep = 1.0 - dones[start + 3].unsqueeze(1)
        h.mul_(keep)
        c.mul_(keep)
    return {"losses": losses, "h": h, "c": c, "params": [p.detach().clone() for p in params]}


if __name__ == "__main__":
    main()
