import torch
import torch.nn as nn
import torch.nn.functional as F


def conv3x3(in_planes, out_planes, stride=1, bias=False):
    """3x3 convolution with padding"""
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride,
                     padding=1, bias=bias)


class BackBone(nn.Module):
    def __init__(self, in_channels=4, ch=8, use_bn=True):
        super(BackBone, self).__init__()
        self.use_bn = use_bn
        self.conv1 = conv3x3(in_channels, ch, bias=not use_bn)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = conv3x3(ch, ch, stride=2, bias=not use_bn)
        self.bn2 = nn.BatchNorm2d(ch)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        x = self.conv1(x)
        if self.use_bn:
            x = self.bn1(x)
        x = self.relu(x)
        x = self.conv2(x)
        if self.use_bn:
            x = self.bn2(x)
        x = self.relu(x)
        return x


class Header(nn.Module):

    def __init__(self, ch=8, use_bn=True):
        super(Header, self).__init__()

        self.use_bn = use_bn
        bias = not use_bn
        self.conv1 = conv3x3(ch, ch, bias=bias)
        self.bn1 = nn.BatchNorm2d(ch)
        self.conv2 = conv3x3(ch, ch, bias=bias)
        self.bn2 = nn.BatchNorm2d(ch)

        self.clshead = conv3x3(ch, 1, bias=True)
        self.reghead = conv3x3(ch, 6, bias=True)

    def forward(self, x):
        x = self.conv1(x)
        if self.use_bn:
            x = self.bn1(x)
        x = self.conv2(x)
        if self.use_bn:
            x = self.bn2(x)

        cls = torch.sigmoid(self.clshead(x))
        reg = self.reghead(x)

        return cls, reg


class Decoder(nn.Module):

    def __init__(self):
        super(Decoder, self).__init__()
        self.geometry = [-1.6, 1.6, 0.0, 3.2]
        self.grid_size = 0.4

        self.target_mean = [0.008, 0.001, 0.202, 0.2, 0.43, 1.368]
        self.target_std_dev = [0.866, 0.5, 0.954, 0.668, 0.09, 0.111]

    def forward(self, x):

        device = torch.device('cpu')
        if x.is_cuda:
            device = x.get_device()

        for i in range(6):
            x[:, i, :, :] = x[:, i, :, :] * self.target_std_dev[i] + self.target_mean[i]

        cos_t, sin_t, dx, dy, log_w, log_l = torch.chunk(x, 6, dim=1)
        theta = torch.atan2(sin_t, cos_t)
        cos_t = torch.cos(theta)
        sin_t = torch.sin(theta)

        x = torch.arange(self.geometry[2], self.geometry[3], self.grid_size, dtype=torch.float32, device=device)
        y = torch.arange(self.geometry[0], self.geometry[1], self.grid_size, dtype=torch.float32, device=device)
        yy, xx = torch.meshgrid([y, x], indexing='ij')
        centre_y = yy + dy
        centre_x = xx + dx
        l = log_l.exp()
        w = log_w.exp()
        rear_left_x = centre_x - l/2 * cos_t - w/2 * sin_t
        rear_left_y = centre_y - l/2 * sin_t + w/2 * cos_t
        rear_right_x = centre_x - l/2 * cos_t + w/2 * sin_t
        rear_right_y = centre_y - l/2 * sin_t - w/2 * cos_t
        front_right_x = centre_x + l/2 * cos_t + w/2 * sin_t
        front_right_y = centre_y + l/2 * sin_t - w/2 * cos_t
        front_left_x = centre_x + l/2 * cos_t - w/2 * sin_t
        front_left_y = centre_y + l/2 * sin_t + w/2 * cos_t

        decoded_reg = torch.cat([rear_left_x, rear_left_y, rear_right_x, rear_right_y,
                                 front_right_x, front_right_y, front_left_x, front_left_y], dim=1)

        return decoded_reg


class PIXOR(nn.Module):
    def __init__(self, use_bn=True, decode=False):
        super(PIXOR, self).__init__()
        self.backbone = BackBone(use_bn=use_bn)
        self.header = Header(use_bn=use_bn)
        self.corner_decoder = Decoder()
        self.use_decode = decode

    def set_decode(self, decode):
        self.use_decode = decode

    def forward(self, x):
        features = self.backbone(x)
        cls, reg = self.header(features)

        if self.use_decode:
            decoded = self.corner_decoder(reg)
            # Return tensor(Batch_num, height, width, 15)
            pred = torch.cat([cls, reg, decoded], dim=1)
        else:
            pred = torch.cat([cls, reg], dim=1)

        return pred
