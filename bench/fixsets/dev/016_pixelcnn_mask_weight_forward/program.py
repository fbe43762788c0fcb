import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.mask_type = mask_type

    def forward(self, x):
        _, _, kh, kw = self.weight.shape
        self.weight[:, :, kh // 2, kw // 2 + (self.mask_type == "B"):] = 0
        self.weight[:, :, kh // 2 + 1:] = 0
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)


def main():
    torch.manual_seed(0)
    net = nn.Sequential(
        MaskedConv2d("A", 1, 4, 3, padding=1),
        nn.ReLU(),
        MaskedConv2d("B", 4, 2, 3, padding=1),
    )
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    img = (torch.rand(2, 1, 5, 5) > 0.5).float()
    for _ in range(2):
        logits = net(img)
        loss = F.cross_entropy(logits, img[:, 0].long())
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "loss": loss.detach(),
        "w_a": net[0].weight.detach().clone(),
        "w_b": net[2].weight.detach().clone(),
        "w_a.grad": net[0].weight.grad,
        "b_b.grad": net[2].bias.grad,
    }


if __name__ == "__main__":
    main()
