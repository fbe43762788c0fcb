from typing import Tuple
import torch.nn as nn
import torch.nn.functional as F
import torch


class Multiresblock(nn.Module):
    def __init__(self, input_features: int, corresponding_unet_filters: int, alpha: float = 1.67) -> None:
        super().__init__()
        self.corresponding_unet_filters = corresponding_unet_filters
        self.alpha = alpha
        self.W = corresponding_unet_filters * alpha
        self.conv2d_bn_1x1 = Conv2d_batchnorm(input_features=input_features, num_of_filters=int(self.W * 0.167) + int(self.W * 0.333) + int(self.W * 0.5),
                                              kernel_size=(1, 1), activation='None', padding=0)
        self.conv2d_bn_3x3 = Conv2d_batchnorm(input_features=input_features, num_of_filters=int(self.W * 0.167),
                                              kernel_size=(3, 3), activation='relu', padding=1)
        self.conv2d_bn_5x5 = Conv2d_batchnorm(input_features=int(self.W * 0.167), num_of_filters=int(self.W * 0.333),
                                              kernel_size=(3, 3), activation='relu', padding=1)
        self.conv2d_bn_7x7 = Conv2d_batchnorm(input_features=int(self.W * 0.333), num_of_filters=int(self.W * 0.5),
                                              kernel_size=(3, 3), activation='relu', padding=1)
        self.batch_norm1 = nn.BatchNorm2d(int(self.W * 0.5) + int(self.W * 0.167) + int(self.W * 0.333), affine=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        temp = self.conv2d_bn_1x1(x)
        a = self.conv2d_bn_3x3(x)
        b = self.conv2d_bn_5x5(a)
        c = self.conv2d_bn_7x7(b)
        x = torch.cat([a, b, c], axis=1)
        x = self.batch_norm1(x)
        x = x + temp
        x = self.batch_norm1(x)
        return x


class Conv2d_batchnorm(nn.Module):
    def __init__(self, input_features: int, num_of_filters: int, kernel_size: Tuple = (2, 2), stride: Tuple = (1, 1), activation: str = 'relu', padding: int = 0) -> None:
        super().__init__()
        self.activation = activation
        self.conv1 = nn.Conv2d(in_channels=input_features, out_channels=num_of_filters, kernel_size=kernel_size, stride=stride, padding=padding)
        self.batchnorm = nn.BatchNorm2d(num_of_filters, affine=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.conv1(x)
        x = self.batchnorm(x)
        if self.activation == 'relu':
            return F.relu(x)
        else:
            return x


class Respath(nn.Module):
    def __init__(self, input_features: int, filters: int, respath_length: int) -> None:
        super().__init__()
        self.filters = filters
        self.respath_length = respath_length
        self.conv2d_bn_1x1 = Conv2d_batchnorm(input_features=input_features, num_of_filters=self.filters,
                                              kernel_size=(1, 1), activation='None', padding=0)
        self.conv2d_bn_3x3 = Conv2d_batchnorm(input_features=input_features, num_of_filters=self.filters,
                                              kernel_size=(3, 3), activation='relu', padding=1)
        self.conv2d_bn_1x1_common = Conv2d_batchnorm(input_features=self.filters, num_of_filters=self.filters,
                                                     kernel_size=(1, 1), activation='None', padding=0)
        self.conv2d_bn_3x3_common = Conv2d_batchnorm(input_features=self.filters, num_of_filters=self.filters,
                                                     kernel_size=(3, 3), activation='relu', padding=1)
        self.batch_norm1 = nn.BatchNorm2d(filters, affine=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        shortcut = self.conv2d_bn_1x1(x)
        x = self.conv2d_bn_3x3(x)
        x = x + shortcut
        x = F.relu(x)
        x = self.batch_norm1(x)
        if self.respath_length > 1:
            for i in range(self.respath_length):
                shortcut = self.conv2d_bn_1x1_common(x)
                x = self.conv2d_bn_3x3_common(x)
                x = x + shortcut
                x = F.relu(x)
                x = self.batch_norm1(x)
            return x
        else:
            return x


class MultiResUnet(nn.Module):
    """Two-level MultiResUNet (the original has four levels)."""

    def __init__(self, channels: int, filters: int = 32, nclasses: int = 1) -> None:
        super().__init__()
        self.alpha = 1.67
        self.filters = filters
        self.nclasses = nclasses
        self.multiresblock1 = Multiresblock(input_features=channels, corresponding_unet_filters=self.filters)
        self.pool1 = nn.MaxPool2d(2, stride=2)
        self.in_filters1 = int(self.filters * self.alpha * 0.5) + int(self.filters * self.alpha * 0.167) + int(self.filters * self.alpha * 0.333)
        self.respath1 = Respath(input_features=self.in_filters1, filters=self.filters, respath_length=4)
        self.multiresblock2 = Multiresblock(input_features=self.in_filters1, corresponding_unet_filters=self.filters * 2)
        self.in_filters2 = int(self.filters * 2 * self.alpha * 0.5) + int(self.filters * 2 * self.alpha * 0.167) + int(self.filters * 2 * self.alpha * 0.333)
        self.upsample9 = nn.ConvTranspose2d(in_channels=self.in_filters2, out_channels=self.filters, kernel_size=(2, 2), stride=(2, 2), padding=0)
        self.concat_filters4 = self.filters + self.filters
        self.multiresblock9 = Multiresblock(input_features=self.concat_filters4, corresponding_unet_filters=self.filters)
        self.in_filters9 = int(self.filters * self.alpha * 0.5) + int(self.filters * self.alpha * 0.167) + int(self.filters * self.alpha * 0.333)
        self.conv_final = Conv2d_batchnorm(input_features=self.in_filters9, num_of_filters=self.nclasses,
                                           kernel_size=(1, 1), activation='None')

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x_multires1 = self.multiresblock1(x)
        x_pool1 = self.pool1(x_multires1)
        x_multires1 = self.respath1(x_multires1)
        x_multires2 = self.multiresblock2(x_pool1)
        up9 = torch.cat([self.upsample9(x_multires2), x_multires1], axis=1)
        x_multires9 = self.multiresblock9(up9)
        if self.nclasses > 1:
            conv_final_layer = self.conv_final(x_multires9)
        else:
            conv_final_layer = torch.sigmoid(self.conv_final(x_multires9))
        return conv_final_layer
