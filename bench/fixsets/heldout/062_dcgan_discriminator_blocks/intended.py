import torch
import torch.nn as nn


def conv_block(c_in, c_out):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, 4, stride=2, padding=1, bias=False),
        nn.BatchNorm2d(c_out),
        nn.LeakyReLU(0.2, inplace=True),
    )


class Discriminator(nn.Module):
    def __init__(self, channels=(3, 8, 16)):
        super().__init__()
        layers = []
        for c_in, c_out in zip(channels[:-1], channels[1:]):
            layers += [conv_block(c_in, c_out), nn.LeakyReLU(0.2)]
        self.features = nn.Sequential(*layers)
        self.head = nn.Conv2d(channels[-1], 1, 4)

    def forward(self, img):
        return self.head(self.features(img)).view(-1)


def main():
    torch.manual_seed(0)
    D = Discriminator()
    opt = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    real = torch.randn(4, 3, 16, 16)
    fake = torch.randn(4, 3, 16, 16) * 0.5
    d_real, d_fake = D(real), D(fake)
    loss = criterion(d_real, torch.ones_like(d_real)) + criterion(d_fake, torch.zeros_like(d_fake))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "d_real": d_real.detach(), "d_fake": d_fake.detach(),
            "state": {k: v.clone() for k, v in D.state_dict().items()}}


if __name__ == "__main__":
    main()
