# A user's rational-quadratic spline coupling flow built on nflows (bayesiains/nflows issue 89):
# the conditioner network exposes `hidden_features` and ends in a ReLU (the reported error names
# "output 0 of ReluBackward0"), so nflows scales the widths/heights it returns.
import torch
import torch.nn as nn
import torch.nn.functional as F

from coupling import PiecewiseRationalQuadraticCouplingTransform


class Conditioner(nn.Module):
    def __init__(self, in_features, out_features, hidden_features=16):
        super().__init__()
        self.hidden_features = hidden_features
        self.net = nn.Sequential(
            nn.Linear(in_features, hidden_features),
            nn.ReLU(),
            nn.Linear(hidden_features, out_features),
            nn.ReLU(),
        )

    def forward(self, inputs, context=None):
        return self.net(inputs)


def create_net(in_features, out_features):
    return Conditioner(in_features, out_features, hidden_features=16)


def main():
    torch.manual_seed(0)
    mask = torch.tensor([1, 0, 1, 0])
    flow = PiecewiseRationalQuadraticCouplingTransform(mask, create_net, num_bins=4)
    opt = torch.optim.Adam(flow.parameters(), lr=1e-2)

    x = torch.sigmoid(torch.randn(8, 4))          # data on [0, 1]^4
    z, logabsdet = flow(x)
    # uniform base density on the unit cube: log q(x) = logabsdet
    loss = -logabsdet.mean()
    opt.zero_grad()
    loss.backward()
    grads = {"grad_" + n: p.grad.clone() for n, p in flow.named_parameters()}
    opt.step()

    out = {"z": z.detach(), "logabsdet": logabsdet.detach(), "loss": loss.detach()}
    out.update(grads)
    for n, p in flow.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
