import torch
import torch.nn as nn

_conv3d = nn.Conv3d


class Conv3dWrapper(_conv3d):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode='zeros'):
        super(Conv3dWrapper, self).__init__(in_channels, out_channels, kernel_size, stride,
                                            padding, dilation, groups, bias, padding_mode)

    def forward(self, input):
        return torch.clamp_(super(Conv3dWrapper, self).forward(input), -65504, 65504)


_conv_trans3d = nn.ConvTranspose3d


class ConvTranspose3dWrapper(_conv_trans3d):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode='zeros'):
        super(ConvTranspose3dWrapper, self).__init__(in_channels, out_channels, kernel_size,
                                                     stride, padding, output_padding, groups, bias, dilation, padding_mode)

    def forward(self, input, output_size=None):
        return torch.clamp_(super(ConvTranspose3dWrapper, self).forward(input, output_size), -65504, 65504)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = Conv3dWrapper(1, 4, 3, stride=2, padding=1)
        self.act = nn.ReLU(inplace=True)
        self.up = ConvTranspose3dWrapper(4, 1, 4, stride=2, padding=1)

    def forward(self, x):
        return self.up(self.act(self.down(x)))


def main():
    torch.manual_seed(0)
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(2, 1, 4, 4, 4)
    target = torch.randn(2, 1, 4, 4, 4)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        y = net(x)
        loss = ((y - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    out = {"losses": losses, "y": y.detach()}
    for n, p in net.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
