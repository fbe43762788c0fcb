import torch
import torch.nn as nn


def spectral_norm(module, mode=True):
    if mode:
        return nn.utils.spectral_norm(module)
    return module


class G_Net(nn.Module):
    """Reduced RN generator: encoder, one residual block, decoder (the region-normalization
    blocks of the project are replaced by plain InstanceNorm)."""
    def __init__(self, input_channels=3, residual_blocks=1, threshold=None, ch=8):
        super(G_Net, self).__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(input_channels + 1, ch, 3, padding=1),
            nn.InstanceNorm2d(ch),
            nn.ReLU(True),
            nn.Conv2d(ch, ch, 4, stride=2, padding=1),
            nn.InstanceNorm2d(ch),
            nn.ReLU(True),
        )
        self.middle = nn.Sequential(nn.Conv2d(ch, ch, 3, padding=1), nn.InstanceNorm2d(ch), nn.ReLU(True))
        self.decoder = nn.Sequential(
            nn.ConvTranspose2d(ch, ch, 4, stride=2, padding=1),
            nn.InstanceNorm2d(ch),
            nn.ReLU(True),
            nn.Conv2d(ch, 3, 3, padding=1),
        )

    def forward(self, x, mask):
        x = torch.cat([x * (1 - mask), mask[:, :1]], dim=1)
        x = self.encoder(x)
        x = x + self.middle(x)
        x = self.decoder(x)
        return (torch.tanh(x) + 1) / 2


class D_Net(nn.Module):
    def __init__(self, in_channels, use_sigmoid=True, use_spectral_norm=True, ch=8):
        super(D_Net, self).__init__()
        self.use_sigmoid = use_sigmoid

        self.conv1 = self.features = nn.Sequential(
            spectral_norm(nn.Conv2d(in_channels=in_channels, out_channels=ch, kernel_size=4, stride=2, padding=1, bias=not use_spectral_norm), use_spectral_norm),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.conv2 = nn.Sequential(
            spectral_norm(nn.Conv2d(in_channels=ch, out_channels=2 * ch, kernel_size=4, stride=2, padding=1, bias=not use_spectral_norm), use_spectral_norm),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.conv5 = nn.Sequential(
            spectral_norm(nn.Conv2d(in_channels=2 * ch, out_channels=1, kernel_size=4, stride=1, padding=1, bias=not use_spectral_norm), use_spectral_norm),
        )

    def forward(self, x):
        conv1 = self.conv1(x)
        conv2 = self.conv2(conv1)
        conv5 = self.conv5(conv2)

        outputs = conv5
        if self.use_sigmoid:
            outputs = torch.sigmoid(conv5)

        return outputs, [conv1, conv2, conv5]
