"""glow-pytorch FlowStep (chaiyujin/glow-pytorch, PR #6): the coupling writes the second
half in place (`z2 += shift; z2 *= scale`); z2 and z1 are views of the same tensor z and
the coupling network's first convolution saved z1, so the write invalidates it."""
import math

import torch
import torch.nn as nn

import thops
from models import FlowStep
from modules import GaussianDiag

hparams = {"Glow": {"hidden_channels": 8, "K": 2, "actnorm_scale": 1.0,
                    "flow_permutation": "invconv", "flow_coupling": "affine"}}


class TinyGlow(nn.Module):
    def __init__(self, in_channels, hp):
        super().__init__()
        self.layers = nn.ModuleList([
            FlowStep(in_channels, hp["hidden_channels"], hp["actnorm_scale"],
                     hp["flow_permutation"], hp["flow_coupling"]) for _ in range(hp["K"])])

    def normal_flow(self, x):
        pixels = thops.pixels(x)
        z = x + torch.normal(mean=torch.zeros_like(x), std=torch.ones_like(x) * (1. / 256.))
        logdet = torch.zeros_like(x[:, 0, 0, 0])
        logdet += float(-math.log(256.) * pixels)
        for layer in self.layers:
            z, logdet = layer(z, logdet, reverse=False)
        mean = torch.zeros_like(z)
        logs = torch.zeros_like(z)
        objective = logdet + GaussianDiag.logp(mean, logs, z)
        nll = (-objective) / float(math.log(2.) * pixels)
        return z, nll


def main():
    torch.manual_seed(0)
    graph = TinyGlow(4, hparams["Glow"])
    optim = torch.optim.Adam(graph.parameters(), lr=1e-3)
    x = torch.rand(4, 4, 8, 8) - 0.5
    losses = []
    for step in range(2):
        graph.zero_grad()
        z, nll = graph.normal_flow(x)
        loss_generative = torch.mean(nll)
        loss_generative.backward()
        optim.step()
        losses.append(loss_generative.detach())
    out = {"losses": losses, "z": z.detach()}
    for name, p in graph.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
