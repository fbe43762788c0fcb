"""disentangling-vae FactorKLoss (YannDubs/disentangling-vae, issue #62): the VAE
optimizer steps right after vae_loss.backward(retain_graph=True); d_tc_loss reuses d_z,
whose graph runs through the encoder weights that optimizer.step() just changed."""
from collections import defaultdict

import torch
from torch import optim

from vae import VAE
from losses import FactorKLoss


def main():
    torch.manual_seed(0)
    img_size = (1, 16, 16)
    model = VAE(img_size, latent_dim=4)
    optimizer = optim.Adam(model.parameters(), lr=5e-4)
    loss_f = FactorKLoss('cpu', gamma=6., latent_dim=4)
    storer = defaultdict(list)
    data = torch.rand(16, *img_size)
    model.train()
    for it in range(2):
        batch = data[it * 8:(it + 1) * 8]
        loss_f(batch, model, optimizer, storer)
    out = {"loss": storer['loss'], "tc_loss": storer['tc_loss'], "discrim_loss": storer['discrim_loss']}
    for name, p in model.named_parameters():
        out["vae." + name] = p.detach().clone()
    for name, p in loss_f.discriminator.named_parameters():
        out["d." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
