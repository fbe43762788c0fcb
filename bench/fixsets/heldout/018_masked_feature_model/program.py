import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedFeatureModel(nn.Module):
    def __init__(self, d_in=6, dim=16):
        super().__init__()
        self.embed = nn.Sequential(nn.Linear(d_in, dim), nn.ReLU())
        self.mask_token = nn.Parameter(torch.zeros(dim))
        self.mix = nn.GRU(dim, dim, batch_first=True)
        self.decode = nn.Linear(dim, d_in)

    def forward(self, frames, masked_idx):
        b, t, _ = frames.shape
        tokens = self.embed(frames).reshape(b * t, -1)
        tokens[masked_idx] = self.mask_token
        h, _ = self.mix(tokens.view(b, t, -1))
        return self.decode(h)


def main():
    torch.manual_seed(0)
    model = MaskedFeatureModel()
    with torch.no_grad():
        model.mask_token.normal_(std=0.02)
    frames = torch.randn(2, 10, 6)
    masked_idx = torch.randperm(20)[:6]
    recon = model(frames, masked_idx)
    target = frames.reshape(20, -1)[masked_idx]
    loss = F.mse_loss(recon.reshape(20, -1)[masked_idx], target)
    loss.backward()
    return {"recon": recon.detach(), "loss": loss.item(),
            "grads": {n: p.grad for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
