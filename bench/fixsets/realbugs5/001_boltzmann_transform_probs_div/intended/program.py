"""Fit mixture weights on the simplex through an unconstrained parameter (MAP by gradient descent)."""
import torch
from torch.distributions import Normal

from transforms import transform_to_simplex


class MixtureModel(torch.nn.Module):
    def __init__(self, num_components):
        super(MixtureModel, self).__init__()
        self.unconstrained_weights = torch.nn.Parameter(torch.zeros(num_components))
        self.locs = torch.nn.Parameter(torch.linspace(-2.0, 2.0, num_components))
        self.to_simplex = transform_to_simplex()

    def forward(self, data):
        weights = self.to_simplex(self.unconstrained_weights)
        log_lik = Normal(self.locs, 1.0).log_prob(data.unsqueeze(-1))
        log_lik = torch.logsumexp(log_lik + weights.log(), dim=-1)
        return weights, -log_lik.sum()


def main():
    torch.manual_seed(0)
    data = torch.cat([torch.randn(20) - 2.0, torch.randn(10) + 1.5])
    model = MixtureModel(3)
    optim = torch.optim.SGD(model.parameters(), lr=0.01)

    weights, loss = model(data)
    optim.zero_grad()
    loss.backward()
    grads = {
        "grad_unconstrained_weights": model.unconstrained_weights.grad.clone(),
        "grad_locs": model.locs.grad.clone(),
    }
    optim.step()
    out = {
        "weights": weights.detach(),
        "loss": loss.detach(),
        "unconstrained_weights": model.unconstrained_weights.detach().clone(),
        "locs": model.locs.detach().clone(),
    }
    out.update(grads)
    return out


if __name__ == "__main__":
    main()
