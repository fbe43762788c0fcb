"""Learn Dirichlet concentrations by reparameterized samples (vendored PyTorch 0.4 Dirichlet)."""
import torch

from dirichlet import Dirichlet


def main():
    torch.manual_seed(0)
    log_concentration = torch.zeros(3, requires_grad=True)
    target = torch.tensor([0.6, 0.3, 0.1])
    optimizer = torch.optim.SGD([log_concentration], lr=0.5)
    losses = []
    for _ in range(3):
        concentration = log_concentration.exp()
        samples = Dirichlet(concentration).rsample((16,))
        loss = ((samples - target) ** 2).sum(-1).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return {"losses": losses, "samples": samples.detach(),
            "log_concentration": log_concentration.detach().clone(),
            "grad_log_concentration": log_concentration.grad.clone()}


if __name__ == "__main__":
    main()
