import math
import torch
from torch import nn

# Reduced from leftthomas/SRGAN model.py: same classes and wiring, narrower
# (64 -> 8 channels, 5 -> 2 residual blocks, shorter discriminator).
NF = 8


class Generator(nn.Module):
    def __init__(self, scale_factor):
        upsample_block_num = int(math.log(scale_factor, 2))

        super(Generator, self).__init__()
        self.block1 = nn.Sequential(
            nn.Conv2d(3, NF, kernel_size=9, padding=4),
            nn.PReLU()
        )
        self.block2 = ResidualBlock(NF)
        self.block3 = ResidualBlock(NF)
        self.block7 = nn.Sequential(
            nn.Conv2d(NF, NF, kernel_size=3, padding=1),
            nn.BatchNorm2d(NF)
        )
        block8 = [UpsampleBLock(NF, 2) for _ in range(upsample_block_num)]
        block8.append(nn.Conv2d(NF, 3, kernel_size=9, padding=4))
        self.block8 = nn.Sequential(*block8)

    def forward(self, x):
        block1 = self.block1(x)
        block2 = self.block2(block1)
        block3 = self.block3(block2)
        block7 = self.block7(block3)
        block8 = self.block8(block1 + block7)

        return (torch.tanh(block8) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self):
        super(Discriminator, self).__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, NF, kernel_size=3, padding=1),
            nn.LeakyReLU(0.2),

            nn.Conv2d(NF, NF, kernel_size=3, stride=2, padding=1),
            nn.BatchNorm2d(NF),
            nn.LeakyReLU(0.2),

            nn.Conv2d(NF, 2 * NF, kernel_size=3, padding=1),
            nn.BatchNorm2d(2 * NF),
            nn.LeakyReLU(0.2),

            nn.AdaptiveAvgPool2d(1),
            nn.Conv2d(2 * NF, 4 * NF, kernel_size=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(4 * NF, 1, kernel_size=1)
        )

    def forward(self, x):
        batch_size = x.size(0)
        return torch.sigmoid(self.net(x).view(batch_size))


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super(ResidualBlock, self).__init__()
        self.conv1 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.prelu = nn.PReLU()
        self.conv2 = nn.Conv2d(channels, channels, kernel_size=3, padding=1)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        residual = self.conv1(x)
        residual = self.bn1(residual)
        residual = self.prelu(residual)
        residual = self.conv2(residual)
        residual = self.bn2(residual)

        return x + residual


class UpsampleBLock(nn.Module):
    def __init__(self, in_channels, up_scale):
        super(UpsampleBLock, self).__init__()
        self.conv = nn.Conv2d(in_channels, in_channels * up_scale ** 2, kernel_size=3, padding=1)
        self.pixel_shuffle = nn.PixelShuffle(up_scale)
        self.prelu = nn.PReLU()

    def forward(self, x):
        x = self.conv(x)
        x = self.pixel_shuffle(x)
        x = self.prelu(x)
        return x
