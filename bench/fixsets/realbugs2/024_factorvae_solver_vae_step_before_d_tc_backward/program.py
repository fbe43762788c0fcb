"""FactorVAE Solver (1Konny/FactorVAE, issue #15): optim_VAE.step() runs right after
vae_loss.backward(retain_graph=True); D_tc_loss then reuses D_z = D(z), whose graph goes
back through the encoder weights that step rewrote in place."""
from types import SimpleNamespace

import torch

from solver import Solver


def main():
    torch.manual_seed(0)
    data_loader = [((torch.rand(8, 1, 16, 16) > 0.7).float(), (torch.rand(8, 1, 16, 16) > 0.7).float())
                   for _ in range(2)]
    args = SimpleNamespace(max_iter=2, z_dim=4, gamma=6.4, lr_VAE=1e-4, beta1_VAE=0.9, beta2_VAE=0.999,
                           lr_D=1e-4, beta1_D=0.5, beta2_D=0.9, data_loader=data_loader)
    net = Solver(args)
    net.train()
    out = {"history": [list(h) for h in net.history]}
    for prefix, m in (("VAE", net.VAE), ("D", net.D)):
        for name, p in m.named_parameters():
            out[prefix + "." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
