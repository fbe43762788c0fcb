from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F


def calculate_out_shape(in_shape, kernel_size, stride, padding):
    in_shape_np = np.atleast_1d(in_shape)
    out_shape = ((in_shape_np - kernel_size + padding + padding) // stride) + 1
    return tuple(int(s) for s in out_shape)


class AutoEncoder(nn.Module):
    def __init__(self, spatial_dims, in_channels, out_channels, channels, strides, kernel_size=3):
        super().__init__()
        self.dimensions = spatial_dims
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.channels = list(channels)
        self.strides = list(strides)
        self.kernel_size = kernel_size
        self.encoded_channels = in_channels
        decode_channel_list = list(channels[-2::-1]) + [out_channels]

        self.encode, self.encoded_channels = self._get_encode_module(self.encoded_channels, channels, strides)
        self.decode, _ = self._get_decode_module(self.encoded_channels, decode_channel_list, strides[::-1] or [1])

    def _get_encode_module(self, in_channels, channels, strides):
        encode = nn.Sequential()
        layer_channels = in_channels
        for i, (c, s) in enumerate(zip(channels, strides)):
            layer = nn.Sequential(nn.Conv2d(layer_channels, c, self.kernel_size, stride=s, padding=1),
                                  nn.InstanceNorm2d(c), nn.PReLU())
            encode.add_module("encode_%i" % i, layer)
            layer_channels = c
        return encode, layer_channels

    def _get_decode_module(self, in_channels, channels, strides):
        decode = nn.Sequential()
        layer_channels = in_channels
        for i, (c, s) in enumerate(zip(channels, strides)):
            is_last = i == len(strides) - 1
            layers = [nn.ConvTranspose2d(layer_channels, c, self.kernel_size, stride=s, padding=1,
                                         output_padding=s - 1)]
            if not is_last:
                layers += [nn.InstanceNorm2d(c), nn.PReLU()]
            decode.add_module("decode_%i" % i, nn.Sequential(*layers))
            layer_channels = c
        return decode, layer_channels


class VarAutoEncoder(AutoEncoder):
    """Variational Autoencoder based on the paper - https://arxiv.org/abs/1312.6114"""

    def __init__(self, spatial_dims, in_shape, out_channels, latent_size, channels, strides,
                 kernel_size=3, use_sigmoid=True):
        self.in_channels, *self.in_shape = in_shape
        self.use_sigmoid = use_sigmoid
        self.latent_size = latent_size
        self.final_size = np.asarray(self.in_shape, dtype=int)

        super().__init__(spatial_dims, self.in_channels, out_channels, channels, strides, kernel_size)

        padding = 1
        for s in strides:
            self.final_size = calculate_out_shape(self.final_size, self.kernel_size, s, padding)

        linear_size = int(np.prod(self.final_size)) * self.encoded_channels
        self.mu = nn.Linear(linear_size, self.latent_size)
        self.logvar = nn.Linear(linear_size, self.latent_size)
        self.decodeL = nn.Linear(self.latent_size, linear_size)

    def encode_forward(self, x):
        x = self.encode(x)
        x = x.view(x.shape[0], -1)
        mu = self.mu(x)
        logvar = self.logvar(x)
        return mu, logvar

    def decode_forward(self, z, use_sigmoid=True):
        x = F.relu(self.decodeL(z))
        x = x.view(x.shape[0], self.channels[-1], *self.final_size)
        x = self.decode(x)
        if use_sigmoid:
            x = torch.sigmoid(x)
        return x

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)

        if self.training:  # multiply random noise with std only during training
            std = torch.randn_like(std).mul(std)

        return std.add_(mu)

    def forward(self, x):
        mu, logvar = self.encode_forward(x)
        z = self.reparameterize(mu, logvar)
        return self.decode_forward(z, self.use_sigmoid), mu, logvar, z
