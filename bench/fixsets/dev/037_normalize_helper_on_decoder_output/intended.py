import torch
import torch.nn as nn
import torch.nn.functional as F

MEAN = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
STD = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)


def normalize_(img, mean, std):
    img = img.sub(mean).div(std)
    return img


class Decoder(nn.Module):
    def __init__(self, z_dim):
        super().__init__()
        self.fc = nn.Linear(z_dim, 3 * 4 * 4)

    def forward(self, z):
        return torch.sigmoid(self.fc(z)).view(-1, 3, 4, 4)


def main():
    torch.manual_seed(0)
    dec = Decoder(5)
    features = nn.Conv2d(3, 4, 3)
    for p in features.parameters():
        p.requires_grad_(False)
    z = torch.randn(2, 5)
    target = torch.rand(2, 3, 4, 4)

    recon = dec(z)
    pixel_loss = F.mse_loss(recon, target)
    recon = normalize_(recon, MEAN, STD)
    target_n = normalize_(target.clone(), MEAN, STD)
    perceptual = F.mse_loss(features(recon), features(target_n))
    loss = pixel_loss + 0.5 * perceptual
    loss.backward()
    return {"recon": recon.detach(), "target": target, "loss": loss.detach(),
            "fc.weight.grad": dec.fc.weight.grad, "fc.bias.grad": dec.fc.bias.grad}


if __name__ == "__main__":
    main()
