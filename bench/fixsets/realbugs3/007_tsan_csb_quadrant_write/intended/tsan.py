import torch
import torch.nn as nn
import torch.nn.functional as F


class make_dense(nn.Module):
    def __init__(self, n_channels, n_feats=64, i=0):
        super(make_dense, self).__init__()
        kernel_size_1 = 3
        s = i + 1
        self.conv_1_1 = nn.Conv2d(n_channels, n_feats, 1, padding=0, stride=1)
        self.conv_1_2 = nn.Conv2d(n_feats * 4, n_feats, 1, padding=0, stride=1)
        self.conv_3_1 = nn.Conv2d(n_feats, n_feats, kernel_size_1, padding=s, stride=1, dilation=s)
        self.dilated_conv_3_1 = nn.Conv2d(n_feats, n_feats, kernel_size_1, padding=s, stride=1, dilation=s)
        self.conv_3_2 = nn.Conv2d(n_feats, n_feats, kernel_size_1, padding=s, stride=1, dilation=s)
        self.dilated_conv_3_2 = nn.Conv2d(n_feats, n_feats, kernel_size_1, padding=s, stride=1, dilation=s)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out1x1 = self.relu(self.conv_1_1(x))
        input_1_1 = self.relu(self.conv_3_1(out1x1))
        input_1_2 = self.relu(self.dilated_conv_3_1(input_1_1))
        input_2_1 = self.relu(self.dilated_conv_3_2(out1x1))
        input_2_2 = self.relu(self.conv_3_2(input_2_1))
        output = torch.cat([input_1_1, input_1_2, input_2_1, input_2_2], 1)
        output = self.relu(self.conv_1_2(output))
        output = torch.cat([output, x], 1)
        return output


class DRB(nn.Module):
    def __init__(self, n_channels, n_denselayer=6, n_feats=64):
        super(DRB, self).__init__()
        nChannels_ = n_channels
        modules = []
        for i in range(n_denselayer):
            modules.append(make_dense(nChannels_, n_feats, i))
            nChannels_ += n_feats
        self.dense_layers = nn.Sequential(*modules)
        self.conv_1x1 = nn.Conv2d(nChannels_, n_feats, kernel_size=1, padding=0, bias=False)

    def forward(self, x):
        out = self.dense_layers(x)
        out = self.conv_1x1(out)
        out = x + out
        return out


class CSB(nn.Module):
    def __init__(self, n_feats):
        super(CSB, self).__init__()
        self.conv1 = nn.Conv2d(n_feats * 4, n_feats * 4, kernel_size=1, padding=0, bias=False)

    def forward(self, x):
        f1 = x[:, :, 0:x.size(2) // 2, 0:x.size(3) // 2]
        f2 = x[:, :, x.size(2) // 2:, 0:x.size(3) // 2]
        f3 = x[:, :, 0:x.size(2) // 2, x.size(3) // 2:]
        f4 = x[:, :, x.size(2) // 2:, x.size(3) // 2:]
        f_all = torch.cat([f1, f2, f3, f4], 1)
        f_all = self.conv1(f_all)
        out = x.clone()
        out[:, :, 0:x.size(2) // 2, 0:x.size(3) // 2] = f_all[:, 0:f_all.size(1) // 4, :, :]
        out[:, :, x.size(2) // 2:, 0:x.size(3) // 2] = f_all[:, f_all.size(1) // 4:f_all.size(1) // 2, :, :]
        out[:, :, 0:x.size(2) // 2, x.size(3) // 2:] = f_all[:, f_all.size(1) // 2:f_all.size(1) * 3 // 4, :, :]
        out[:, :, x.size(2) // 2:, x.size(3) // 2:] = f_all[:, f_all.size(1) * 3 // 4:, :, :]
        return out


class First_Order(nn.Module):
    def __init__(self):
        super(First_Order, self).__init__()
        self.adaptive = nn.AdaptiveAvgPool2d((1, 1))

    def forward(self, x):
        first_c = torch.sigmoid(self.adaptive(x))
        first_c = first_c * x
        xh = x.permute(0, 2, 1, 3)
        first_h = torch.sigmoid(self.adaptive(xh))
        first_h = (first_h * xh).permute(0, 2, 1, 3)
        xw = x.permute(0, 3, 2, 1)
        first_w = torch.sigmoid(self.adaptive(xw))
        first_w = (first_w * xw).permute(0, 3, 2, 1)
        return first_c + first_h + first_w + x


class MCAB(nn.Module):
    def __init__(self, n_channels, n_denselayer=6, n_feats=64):
        super(MCAB, self).__init__()
        self.drb = DRB(n_channels, n_denselayer, n_feats)
        self.csb = CSB(n_feats)
        self.first = First_Order()
        self.conv3 = nn.Conv2d(n_feats, n_feats, kernel_size=3, padding=1, bias=False)

    def forward(self, x):
        down_b = self.drb(x)
        top_b = self.csb(x)
        top_b = self.first(top_b)
        top_b = torch.sigmoid(self.conv3(top_b))
        return down_b * top_b


class TSAN(nn.Module):
    def __init__(self, n_colors=3, n_feats=4, n_denselayer=2):
        super(TSAN, self).__init__()
        self.first_conv = nn.Conv2d(n_colors, n_feats, 1, padding=0, stride=1)
        self.body1 = MCAB(n_feats, n_denselayer, n_feats)
        self.body2 = MCAB(n_feats, n_denselayer, n_feats)
        self.tail = nn.Sequential(nn.Conv2d(n_feats * 2, n_feats, 1), nn.Conv2d(n_feats, n_feats, 3, padding=1))
        self.output1 = nn.Conv2d(n_feats, n_colors, 1)
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        first_out = self.relu(self.first_conv(x))
        out_dense1 = self.body1(first_out)
        out_dense2 = self.body2(out_dense1)
        dense = torch.cat([out_dense1, out_dense2], 1)
        out = self.tail(dense)
        out = out + first_out
        return self.output1(out)
