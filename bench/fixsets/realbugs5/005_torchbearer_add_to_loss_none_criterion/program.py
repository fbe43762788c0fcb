"""Autoencoder trained through torchbearer with no criterion: the loss is added by an add_to_loss callback."""
import torch
import torch.nn as nn
import torch.nn.functional as F

import bearer
from bearer import Trial
from decorators import add_to_loss


class AutoEncoder(nn.Module):
    def __init__(self, dim, code):
        super(AutoEncoder, self).__init__()
        self.encoder = nn.Sequential(nn.Linear(dim, code), nn.ReLU())
        self.decoder = nn.Linear(code, dim)

    def forward(self, x):
        return self.decoder(self.encoder(x))


@add_to_loss
def reconstruction_loss(state):
    return F.mse_loss(state[bearer.Y_PRED], state[bearer.X])


def main():
    torch.manual_seed(0)
    model = AutoEncoder(6, 3)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    batches = [(torch.randn(4, 6), None) for _ in range(3)]
    trial = Trial(model, optimizer, criterion=None, callbacks=[reconstruction_loss])
    losses = trial.run_batches(batches)
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out["param." + name] = p.detach().clone()
        out["grad." + name] = p.grad.clone()
    return out


if __name__ == "__main__":
    main()
