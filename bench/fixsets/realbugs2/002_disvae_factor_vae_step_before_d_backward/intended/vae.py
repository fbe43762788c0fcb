import torch
from torch import nn
import torch.nn.functional as F


class EncoderBurgess(nn.Module):
    def __init__(self, img_size, latent_dim=4):
        super(EncoderBurgess, self).__init__()
        hid_channels = 4
        kernel_size = 4
        hidden_dim = 16
        self.latent_dim = latent_dim
        self.img_size = img_size
        self.reshape = (hid_channels, kernel_size, kernel_size)
        n_chan = self.img_size[0]
        cnn_kwargs = dict(stride=2, padding=1)
        self.conv1 = nn.Conv2d(n_chan, hid_channels, kernel_size, **cnn_kwargs)
        self.conv2 = nn.Conv2d(hid_channels, hid_channels, kernel_size, **cnn_kwargs)
        self.lin1 = nn.Linear(int(torch.tensor(self.reshape).prod()), hidden_dim)
        self.lin2 = nn.Linear(hidden_dim, hidden_dim)
        self.mu_logvar_gen = nn.Linear(hidden_dim, self.latent_dim * 2)

    def forward(self, x):
        batch_size = x.size(0)
        x = torch.relu(self.conv1(x))
        x = torch.relu(self.conv2(x))
        x = x.view((batch_size, -1))
        x = torch.relu(self.lin1(x))
        x = torch.relu(self.lin2(x))
        mu_logvar = self.mu_logvar_gen(x)
        mu, logvar = mu_logvar.view(-1, self.latent_dim, 2).unbind(-1)
        return mu, logvar


class DecoderBurgess(nn.Module):
    def __init__(self, img_size, latent_dim=4):
        super(DecoderBurgess, self).__init__()
        hid_channels = 4
        kernel_size = 4
        hidden_dim = 16
        self.img_size = img_size
        self.reshape = (hid_channels, kernel_size, kernel_size)
        n_chan = self.img_size[0]
        self.lin1 = nn.Linear(latent_dim, hidden_dim)
        self.lin2 = nn.Linear(hidden_dim, int(torch.tensor(self.reshape).prod()))
        cnn_kwargs = dict(stride=2, padding=1)
        self.convT1 = nn.ConvTranspose2d(hid_channels, hid_channels, kernel_size, **cnn_kwargs)
        self.convT2 = nn.ConvTranspose2d(hid_channels, n_chan, kernel_size, **cnn_kwargs)

    def forward(self, z):
        batch_size = z.size(0)
        x = torch.relu(self.lin1(z))
        x = torch.relu(self.lin2(x))
        x = x.view(batch_size, *self.reshape)
        x = torch.relu(self.convT1(x))
        x = torch.sigmoid(self.convT2(x))
        return x


class VAE(nn.Module):
    def __init__(self, img_size, latent_dim):
        super(VAE, self).__init__()
        self.latent_dim = latent_dim
        self.img_size = img_size
        self.encoder = EncoderBurgess(img_size, self.latent_dim)
        self.decoder = DecoderBurgess(img_size, self.latent_dim)

    def reparameterize(self, mean, logvar):
        if self.training:
            std = torch.exp(0.5 * logvar)
            eps = torch.randn_like(std)
            return mean + std * eps
        else:
            return mean

    def forward(self, x):
        latent_dist = self.encoder(x)
        latent_sample = self.reparameterize(*latent_dist)
        reconstruct = self.decoder(latent_sample)
        return reconstruct, latent_dist, latent_sample

    def sample_latent(self, x):
        latent_dist = self.encoder(x)
        latent_sample = self.reparameterize(*latent_dist)
        return latent_sample


class Discriminator(nn.Module):
    def __init__(self, neg_slope=0.2, latent_dim=4, hidden_units=16):
        super(Discriminator, self).__init__()
        self.neg_slope = neg_slope
        self.leaky_relu = nn.LeakyReLU(self.neg_slope, True)
        self.z_dim = latent_dim
        self.hidden_units = hidden_units
        out_units = 2
        self.lin1 = nn.Linear(self.z_dim, hidden_units)
        self.lin2 = nn.Linear(hidden_units, hidden_units)
        self.lin3 = nn.Linear(hidden_units, out_units)

    def forward(self, z):
        z = self.leaky_relu(self.lin1(z))
        z = self.leaky_relu(self.lin2(z))
        z = self.lin3(z)
        return z
