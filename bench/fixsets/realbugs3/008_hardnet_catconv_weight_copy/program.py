import torch
import torch.nn as nn
import torch.nn.functional as F


class CatConv2d(nn.Module):
    """Convolution over a list of feature maps, without materialising torch.cat."""

    def __init__(self, in_channels, out_channels, kernel_size, relu=True):
        super().__init__()
        self.kernel_size = kernel_size
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, *kernel_size))
        self.bias = nn.Parameter(torch.empty(out_channels))
        nn.init.kaiming_uniform_(self.weight)
        nn.init.zeros_(self.bias)
        self.relu = relu

    def forward(self, x_list):
        out = self.bias.view(1, -1, 1, 1)
        start = 0
        for x in x_list:
            c = x.size(1)
            out = out + F.conv2d(x, self.weight[:, start:start + c], padding=self.kernel_size[0] // 2)
            start += c
        return F.relu(out) if self.relu else out


def main():
    torch.manual_seed(0)
    x_list = [3, 2, 4]
    img_sz = 5
    output_ch = 6
    X_list = [torch.randn(2, x, img_sz, img_sz) for x in x_list]

    W = torch.randn(output_ch, sum(x_list), 3, 3)
    bias = torch.randn(output_ch)

    cconv = CatConv2d(sum(x_list), output_ch, (3, 3), relu=False)
    cconv.weight[:, :, :, :] = W[:, :, :, :]
    cconv.bias[:] = bias[:]

    conv = nn.Conv2d(sum(x_list), output_ch, kernel_size=3, stride=1, bias=True, padding=1)
    conv.weight[:, :, :, :] = W[:, :, :, :]
    conv.bias[:] = bias[:]

    out = cconv(X_list)
    out2 = conv(torch.cat(X_list, 1))
    diff = torch.topk((abs(out - out2)).flatten(), 10)[0]
    return {"out": out.detach(), "out2": out2.detach(), "diff": diff.detach()}


if __name__ == "__main__":
    main()
