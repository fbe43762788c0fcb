"""pytorch/pytorch#5687 (content-weighted image compression CNN): the
ResidualBlock's left branch ends in ReLU(inplace=True) and its output is then
updated with `out += residual`. ResidualBlock is as reported; the rest of
ContentWeightedCNN (encoder/decoder around the blocks) is reconstructed small.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class BasicModule(nn.Module):
    def __init__(self):
        super(BasicModule, self).__init__()
        self.model_name = str(type(self))


class ResidualBlock(nn.Module):
    def __init__(self, ch_in, ch_out, shortcut=None):
        super(ResidualBlock, self).__init__()
        self.left = nn.Sequential(
            nn.Conv2d(ch_in, 16, 3, 1, 1),  # ch_in, ch_out, kernel_size, stride, pad
            nn.ReLU(inplace=True),
            nn.Conv2d(16, ch_out, 3, 1, 1),
            nn.ReLU(inplace=True),
        )
        self.right = shortcut

    def forward(self, x):
        out = self.left(x)
        residual = x if self.right is None else self.right(x)
        out = out + residual
        return F.relu(out, inplace=False)


class ContentWeightedCNN(BasicModule):
    def __init__(self):
        super(ContentWeightedCNN, self).__init__()
        self.model_name = 'ContentWeightedCNN'
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 8, 4, 2, 1), nn.ReLU(inplace=True),
            ResidualBlock(8, 8),
            nn.Conv2d(8, 8, 4, 2, 1), nn.ReLU(inplace=True),
            ResidualBlock(8, 8),
            nn.Conv2d(8, 4, 1, 1, 0), nn.Sigmoid(),
        )
        self.decoder = nn.Sequential(
            nn.Conv2d(4, 8, 1, 1, 0), nn.ReLU(inplace=True),
            ResidualBlock(8, 8),
            nn.ConvTranspose2d(8, 8, 4, 2, 1), nn.ReLU(inplace=True),
            ResidualBlock(8, 8),
            nn.ConvTranspose2d(8, 3, 4, 2, 1),
        )

    def forward(self, x):
        code = self.encoder(x)
        return self.decoder(code)


def main():
    torch.manual_seed(0)
    model = ContentWeightedCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(1)
    losses = []
    for _ in range(2):
        imgs = torch.rand(2, 3, 16, 16, generator=g)
        optimizer.zero_grad()
        rec = model(imgs)
        loss = F.mse_loss(rec, imgs)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {'losses': losses, 'params': [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
