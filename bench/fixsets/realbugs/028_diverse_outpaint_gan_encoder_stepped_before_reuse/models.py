import torch.nn as nn
import torch.nn.functional as F
import torch

##############################
#        Conv Layers
##############################

class UNetDown(nn.Module):
    def __init__(self, in_size, out_size, normalize=True, dropout=0.0):
        super(UNetDown, self).__init__()
        layers = [nn.Conv2d(in_size, out_size, 4, stride=2, padding=1, bias=False)]
        if normalize:
            layers.append(nn.InstanceNorm2d(out_size, affine=True, track_running_stats=True))
        layers.append(nn.LeakyReLU(0.2))
        if dropout:
            layers.append(nn.Dropout(dropout))
        self.model = nn.Sequential(*layers)

    def forward(self, x):
        return self.model(x)

class UNetUp(nn.Module):
    def __init__(self, in_size, out_size, dropout=0.0):
        super(UNetUp, self).__init__()
        layers = [  nn.ConvTranspose2d(in_size, out_size, 4, stride=2, padding=1, bias=False),
                    nn.InstanceNorm2d(out_size, affine=True, track_running_stats=True),
                    nn.ReLU(inplace=True)]
        if dropout:
            layers.append(nn.Dropout(dropout))

        self.model = nn.Sequential(*layers)

    def forward(self, x, skip_input):
        x = self.model(x)
        x = torch.cat((x, skip_input), 1)
        return x

##############################
#        Encoder
##############################

class Encoder(nn.Module):
    def __init__(self):
        super(Encoder, self).__init__()
        self.down1 = UNetDown(3, 8, normalize=False)
        self.down2 = UNetDown(8, 16)
        self.down3 = UNetDown(16, 16)
        self.down4 = UNetDown(16, 16, normalize=False)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(d1)
        d3 = self.down3(d2)
        d4 = self.down4(d3)
        d4 = d4.view(d4.shape[0], -1)
        return d4, [d1, d2, d3]

##############################
#        Decoder
##############################

class Decoder(nn.Module):
    def __init__(self, noise_dim):
        super(Decoder, self).__init__()
        self.up1 = UNetUp(16+noise_dim, 16)
        self.up2 = UNetUp(32, 16)
        self.up3 = UNetUp(32, 8)

        final = [   nn.ConvTranspose2d(16, 3, 4, stride=2, padding=1),
                    nn.Tanh() ]
        self.final = nn.Sequential(*final)

    def forward(self, c_z, feats):
        [d1, d2, d3] = feats
        u1 = self.up1(c_z, d3)
        u2 = self.up2(u1, d2)
        u3 = self.up3(u2, d1)
        return self.final(u3)

##############################
#        Discriminator
##############################

class PSPDiscriminator(nn.Module):
    def __init__(self, d=128):
        super(PSPDiscriminator, self).__init__()
        self.conv1 = nn.Conv2d(3, 8, 4, 2, 1)
        self.conv2 = nn.Conv2d(8, 16, 4, 2, 1)

        # pyramid conv
        self.pool = nn.MaxPool2d(2, 2)
        self.conv_2_1 = nn.Conv2d(16, 8, 3, 1, 1)
        self.conv_1_1 = nn.Conv2d(16, 8, 3, 1, 1)

        # final conv
        self.conv3 = nn.Conv2d(32, 32, 4, 2, 1)
        self.conv4 = nn.Conv2d(32, 1, 2, 1, 0)

    # forward method
    def forward(self, input):
        x = F.leaky_relu(self.conv1(input), 0.2)
        x = F.leaky_relu(self.conv2(x), 0.2)

        # pool features into smaller spatial dimensions
        down_2 = self.pool(x)
        down_1 = self.pool(down_2)

        # conv features into lower dimensional channels
        down_2 = F.leaky_relu(self.conv_2_1(down_2), 0.2)
        down_1 = F.leaky_relu(self.conv_1_1(down_1), 0.2)

        # upsample features and concatenate pyramid features
        down_2 = F.interpolate(down_2, (4, 4))
        down_1 = F.interpolate(down_1, (4, 4))
        concat_feat = torch.cat([x, down_2, down_1], dim=1)

        x = F.leaky_relu(self.conv3(concat_feat), 0.2)
        z = self.conv4(x)
        return z
