"""PyTorch-BiGAN (mperezcarrasco/PyTorch-BiGAN, issue #1): the trainer computes loss_d and
loss_ge from one forward, runs loss_d.backward(retain_graph=True) and optimizer_d.step(),
then loss_ge.backward() goes back through D, whose weights the step rewrote in place."""
from types import SimpleNamespace

import torch

from train import TrainerBiGAN


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(latent_dim=4, wasserstein=False, lr_adam=1e-4, lr_rmsprop=1e-4,
                           num_epochs=1, clamp=0.01)
    data = [(torch.rand(4, 3, 32, 32), torch.zeros(4))]
    trainer = TrainerBiGAN(args, data, 'cpu')
    history = trainer.train()
    out = {"history": [list(h) for h in history]}
    for prefix, m in (("G", trainer.G), ("E", trainer.E), ("D", trainer.D)):
        for name, p in m.named_parameters():
            out[prefix + "." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
