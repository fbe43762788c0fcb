"""vq-vae-2-pytorch (rosinality, issue #60): ResBlock starts with nn.ReLU(inplace=True),
which rewrites `input` itself, so `out += input` adds the rectified tensor instead of
the pre-activation skip. No error is raised; the skip connection is silently wrong."""
import torch
from torch import nn, optim

from vqvae import VQVAE


def train(model, loader, optimizer):
    criterion = nn.MSELoss()
    latent_loss_weight = 0.25
    losses = []
    for i, (img, label) in enumerate(loader):
        model.zero_grad()
        out, latent_loss = model(img)
        recon_loss = criterion(out, img)
        latent_loss = latent_loss.mean()
        loss = recon_loss + latent_loss_weight * latent_loss
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return losses


def main():
    torch.manual_seed(0)
    model = VQVAE()
    optimizer = optim.Adam(model.parameters(), lr=3e-4)
    loader = [(torch.rand(2, 3, 16, 16) * 2 - 1, torch.zeros(2)) for _ in range(2)]
    losses = train(model, loader, optimizer)
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    for name, b in model.named_buffers():
        out["buf." + name] = b.clone()
    return out


if __name__ == "__main__":
    main()
