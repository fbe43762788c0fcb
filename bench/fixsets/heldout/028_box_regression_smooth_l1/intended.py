import torch
import torch.nn as nn


def smooth_l1(pred, target, beta=1.0):
    diff = pred - target
    quad = 0.5 * diff ** 2 / beta
    diff = diff.abs()
    lin = diff - 0.5 * beta
    return torch.where(diff < beta, quad, lin).mean()


class BoxRegressor(nn.Module):
    def __init__(self, c_in=16):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(c_in, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.deltas = nn.Linear(32, 4)

    def forward(self, feats):
        return self.deltas(self.trunk(feats))


def main():
    torch.manual_seed(0)
    net = BoxRegressor()
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    feats = torch.randn(20, 16)
    gt_deltas = torch.randn(20, 4) * 1.5
    trace = []
    for it in range(4):
        loss = smooth_l1(net(feats), gt_deltas)
        opt.zero_grad()
        loss.backward()
        opt.step()
        trace.append(loss.item())
    return {"trace": trace, "state": {k: v.clone() for k, v in net.state_dict().items()}}


if __name__ == "__main__":
    main()
