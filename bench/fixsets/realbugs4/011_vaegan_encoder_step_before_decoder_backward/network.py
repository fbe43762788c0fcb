"""Reduced ry85/VAE-GAN network.py (same classes and VaeGan.forward/loss contract, smaller sizes)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import numpy


class EncoderBlock(nn.Module):
    def __init__(self, channel_in, channel_out):
        super(EncoderBlock, self).__init__()
        self.conv = nn.Conv2d(in_channels=channel_in, out_channels=channel_out, kernel_size=5, padding=2, stride=2,
                              bias=False)
        self.bn = nn.BatchNorm2d(num_features=channel_out, momentum=0.9)

    def forward(self, ten):
        ten = self.conv(ten)
        ten = self.bn(ten)
        ten = F.relu(ten, False)
        return ten


class Encoder(nn.Module):
    def __init__(self, channel_in=3, z_size=8, size=8):
        super(Encoder, self).__init__()
        self.size = size
        self.conv = nn.Sequential(EncoderBlock(channel_in, size), EncoderBlock(size, size))
        self.fc = nn.Sequential(nn.Linear(in_features=4 * 4 * self.size, out_features=32, bias=False),
                                nn.BatchNorm1d(num_features=32, momentum=0.9),
                                nn.ReLU(True))
        self.l_mu = nn.Linear(in_features=32, out_features=z_size)
        self.l_var = nn.Linear(in_features=32, out_features=z_size)

    def forward(self, ten):
        ten = self.conv(ten)
        ten = ten.view(len(ten), -1)
        ten = self.fc(ten)
        mu = self.l_mu(ten)
        logvar = self.l_var(ten)
        return mu, logvar


class Decoder(nn.Module):
    def __init__(self, z_size, size):
        super(Decoder, self).__init__()
        self.size = size
        self.fc = nn.Sequential(nn.Linear(in_features=z_size, out_features=4 * 4 * size, bias=False),
                                nn.BatchNorm1d(num_features=4 * 4 * size, momentum=0.9),
                                nn.ReLU(True))
        self.conv = nn.Sequential(
            nn.ConvTranspose2d(size, size, kernel_size=5, padding=2, stride=2, output_padding=1, bias=False),
            nn.BatchNorm2d(size, momentum=0.9),
            nn.ReLU(True),
            nn.ConvTranspose2d(size, size, kernel_size=5, padding=2, stride=2, output_padding=1, bias=False),
            nn.BatchNorm2d(size, momentum=0.9),
            nn.ReLU(True),
            nn.Conv2d(in_channels=size, out_channels=3, kernel_size=5, stride=1, padding=2),
            nn.Tanh())

    def forward(self, ten):
        ten = self.fc(ten)
        ten = ten.view(len(ten), -1, 4, 4)
        ten = self.conv(ten)
        return ten


class Discriminator(nn.Module):
    def __init__(self, channel_in=3, recon_level=1, size=8):
        super(Discriminator, self).__init__()
        self.size = size
        self.recon_level = recon_level
        self.conv = nn.ModuleList()
        self.conv.append(nn.Sequential(
            nn.Conv2d(in_channels=3, out_channels=size, kernel_size=5, stride=1, padding=2),
            nn.ReLU(inplace=True)))
        self.conv.append(EncoderBlock(size, size))
        self.conv.append(EncoderBlock(size, size))
        self.fc = nn.Sequential(
            nn.Linear(in_features=4 * 4 * self.size, out_features=16, bias=False),
            nn.BatchNorm1d(num_features=16, momentum=0.9),
            nn.ReLU(inplace=True),
            nn.Linear(in_features=16, out_features=1),
        )

    def forward(self, ten_orig, ten_predicted, ten_sampled, mode='REC'):
        ten = torch.cat((ten_orig, ten_predicted, ten_sampled), 0)
        if mode == "REC":
            for i, lay in enumerate(self.conv):
                if i == self.recon_level:
                    ten = ten.view(len(ten), -1)
                    return ten
                ten = lay(ten)
        else:
            for i, lay in enumerate(self.conv):
                ten = lay(ten)
            ten = ten.view(len(ten), -1)
            ten = self.fc(ten)
            return torch.sigmoid(ten)


class VaeGan(nn.Module):
    def __init__(self, z_size=8, recon_level=1):
        super(VaeGan, self).__init__()
        self.z_size = z_size
        self.encoder = Encoder(z_size=self.z_size)
        self.decoder = Decoder(z_size=self.z_size, size=self.encoder.size)
        self.discriminator = Discriminator(channel_in=3, recon_level=recon_level)

    def reparameterize(self, mu, logvar):
        logvar = logvar.mul(0.5).exp_()
        eps = torch.randn_like(logvar)
        return eps.mul(logvar).add_(mu)

    def forward(self, x, gen_size=10):
        if self.training:
            mus, log_variances = self.encoder(x)
            z = self.reparameterize(mus, log_variances)
            x_tilde = self.decoder(z)
            z_p = torch.randn(len(x), self.z_size)
            x_p = self.decoder(z_p)
            disc_layer = self.discriminator(x, x_tilde, x_p, "REC")
            disc_class = self.discriminator(x, x_tilde, x_p, "GAN")
            return x_tilde, disc_class, disc_layer, mus, log_variances

    @staticmethod
    def loss(x, x_tilde, disc_layer_original, disc_layer_predicted, disc_layer_sampled, disc_class_original,
             disc_class_predicted, disc_class_sampled, mus, variances):
        nle = 0.5 * (x.view(len(x), -1) - x_tilde.view(len(x_tilde), -1)) ** 2
        kl = -0.5 * torch.sum(-variances.exp() - torch.pow(mus, 2) + variances + 1, 1)
        mse = torch.sum(0.5 * (disc_layer_original - disc_layer_predicted) ** 2, 1)
        bce_dis_original = -torch.log(disc_class_original + 1e-3)
        bce_dis_predicted = -torch.log(1 - disc_class_predicted + 1e-3)
        bce_dis_sampled = -torch.log(1 - disc_class_sampled + 1e-3)
        return nle, kl, mse, bce_dis_original, bce_dis_predicted, bce_dis_sampled
