"""DeepTDA collective variable (mlcolvar) trained with per-layer dropout, as
in the report: options={'nn': {'dropout': [0.2, 0.4, 0.6]}}. Reduced: the
Lightning trainer is replaced by a plain Adam loop, TDA loss written out.
"""
import torch

from feedforward import FeedForward


class DeepTDA(torch.nn.Module):
    def __init__(self, n_states, n_cvs, target_centers, target_sigmas, layers, options=None):
        super().__init__()
        options = options or {}
        self.nn = FeedForward(layers, **options.get('nn', {}))
        self.n_states = n_states
        self.n_cvs = n_cvs
        self.target_centers = torch.tensor(target_centers, dtype=torch.float32)
        self.target_sigmas = torch.tensor(target_sigmas, dtype=torch.float32)

    def forward(self, x):
        return self.nn(x)

    def loss_fn(self, z, labels, alpha=1.0, beta=100.0):
        loss = 0.0
        for i in range(self.n_states):
            z_i = z[labels == i]
            mu = z_i.mean(0)
            sigma = z_i.std(0)
            loss = loss + alpha * (mu - self.target_centers[i]).pow(2).sum() \
                + beta * (sigma - self.target_sigmas[i]).pow(2).sum()
        return loss


def main():
    torch.manual_seed(0)
    n_states = 2
    target_centers = [-7.0, 7.0]
    target_sigmas = [0.2, 0.2]
    nn_layers = [4, 12, 12, 1]
    model = DeepTDA(n_states=n_states, n_cvs=1, target_centers=target_centers,
                    target_sigmas=target_sigmas, layers=nn_layers,
                    options={'nn': {'dropout': [0.2, 0.4, 0.6]}})
    g = torch.Generator().manual_seed(1)
    x = torch.cat([torch.randn(16, 4, generator=g) - 1.0, torch.randn(16, 4, generator=g) + 1.0])
    labels = torch.cat([torch.zeros(16), torch.ones(16)])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    losses = []
    model.train()
    for _ in range(3):
        opt.zero_grad()
        z = model(x)
        loss = model.loss_fn(z, labels)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {'losses': losses, 'params': [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
