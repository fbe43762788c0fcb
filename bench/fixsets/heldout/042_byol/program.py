import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


def mlp(d_in, d_hidden, d_out):
    return nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(inplace=True),
                         nn.Linear(d_hidden, d_out))


class BYOL(nn.Module):
    def __init__(self, d_in=10, dim=8, tau=0.9):
        super().__init__()
        self.online = nn.Sequential(mlp(d_in, 16, dim), mlp(dim, 16, dim))
        self.predictor = mlp(dim, 16, dim)
        self.target = copy.deepcopy(self.online)
        for p in self.target.parameters():
            p.requires_grad = False
        self.tau = tau

    @torch.no_grad()
    def update_target(self):
        for po, pt in zip(self.online.parameters(), self.target.parameters()):
            pt.mul_(self.tau).add_(po, alpha=1 - self.tau)
        for bo, bt in zip(self.online.buffers(), self.target.buffers()):
            if bt.dtype.is_floating_point:
                bt.lerp_(bo, 1 - self.tau)

    def loss(self, x1, x2):
        p1 = self.predictor(self.online(x1))
        p2 = self.predictor(self.online(x2))
        with torch.no_grad():
            t1, t2 = self.target(x1), self.target(x2)
        l = lambda p, t: 2 - 2 * F.cosine_similarity(p, t, dim=-1).mean()
        return l(p1, t2) + l(p2, t1)


def main():
    torch.manual_seed(0)
    model = BYOL()
    opt = torch.optim.SGD(list(model.online.parameters()) + list(model.predictor.parameters()), lr=0.05)
    x = torch.randn(16, 10)
    losses = []
    for _ in range(3):
        x1 = x + 0.1 * torch.randn_like(x)
        x2 = 0.9 * x + 0.1 * torch.randn_like(x)
        loss = model.loss(x1, x2)
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.update_target()
        losses.append(loss.item())
    return {"losses": losses, "state": {k: v.clone() for k, v in model.state_dict().items()}}


if __name__ == "__main__":
    main()
