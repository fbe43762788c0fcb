import torch
import torch.nn as nn


class GatedGenerator(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.coarse = nn.Sequential(nn.Conv2d(4, ch, 3, padding=1), nn.ELU(), nn.Conv2d(ch, 3, 3, padding=1), nn.Tanh())
        self.refine = nn.Sequential(nn.Conv2d(4, ch, 3, padding=1), nn.ELU(), nn.Conv2d(ch, 3, 3, padding=1), nn.Tanh())

    def forward(self, img, mask):
        first_masked_img = img * (1 - mask) + mask
        first_out = self.coarse(torch.cat((first_masked_img, mask), 1))
        second_masked_img = img * (1 - mask) + first_out * mask
        second_out = self.refine(torch.cat((second_masked_img, mask), 1))
        return first_out, second_out


class PatchDiscriminator(nn.Module):
    def __init__(self, ch=4):
        super().__init__()
        self.block = nn.Sequential(nn.Conv2d(4, ch, 3, stride=2, padding=1), nn.LeakyReLU(0.2), nn.Conv2d(ch, 1, 3, padding=1))

    def forward(self, img, mask):
        return self.block(torch.cat((img, mask), 1))


class PerceptualNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU())
        for p in self.parameters():
            p.requires_grad = False

    def forward(self, x):
        return self.features(x)
