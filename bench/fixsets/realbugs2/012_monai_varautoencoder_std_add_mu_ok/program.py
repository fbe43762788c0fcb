"""MONAI VarAutoEncoder (Project-MONAI/MONAI, issue #8413) in training mode: the
reparameterisation ends with `std.add_(mu)`; in training `std` is the fresh product
randn_like(std).mul(std), which no backward formula saved, so the in-place add is safe
(the issue is about eval mode returning mu + std, not about autograd)."""
import torch
import torch.nn.functional as F

from varautoencoder import VarAutoEncoder


def loss_function(recon_x, x, mu, log_var, beta):
    bce = F.binary_cross_entropy(recon_x, x, reduction="sum")
    kld = -0.5 * beta * torch.sum(1 + log_var - mu.pow(2) - log_var.exp())
    return bce + kld


def main():
    torch.manual_seed(0)
    model = VarAutoEncoder(spatial_dims=2, in_shape=(1, 16, 16), out_channels=1, latent_size=3,
                           channels=(4, 8), strides=(2, 2))
    optimizer = torch.optim.Adam(model.parameters(), 1e-3)
    model.train()
    losses = []
    for step in range(2):
        inputs = torch.rand(4, 1, 16, 16)
        optimizer.zero_grad()
        recon_batch, mu, log_var, _ = model(inputs)
        loss = loss_function(recon_batch, inputs, mu, log_var, beta=100)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
