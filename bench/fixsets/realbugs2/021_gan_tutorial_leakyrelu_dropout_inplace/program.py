"""GAN-tutorial (dreamgonfly/GAN-tutorial, issue #1): the MNIST GAN's Discriminator stacks
nn.LeakyReLU(0.2, inplace=True) and nn.Dropout(inplace=True); the dropout overwrites
the LeakyReLU output that LeakyReluBackward saved, so D_loss.backward() fails.
(Layer widths reduced: 784-1024-512-256 -> 784-64-32-16, 100-d noise -> 16-d.)"""
import torch
import torch.nn as nn
from torch.optim import Adam
from torch.autograd import Variable


### GAN의 생성자(Generator)
class Generator(nn.Module):

    def __init__(self):
        super(Generator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(in_features=16, out_features=16),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=16, out_features=32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=32, out_features=64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(in_features=64, out_features=28*28),
            nn.Tanh())

    def forward(self, inputs):
        return self.main(inputs).view(-1, 1, 28, 28)


### GAN의 구분자(Discriminator)
class Discriminator(nn.Module):

    def __init__(self):
        super(Discriminator, self).__init__()
        self.main = nn.Sequential(
            nn.Linear(in_features=28*28, out_features=64),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=64, out_features=32),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=32, out_features=16),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Dropout(inplace=True),
            nn.Linear(in_features=16, out_features=1),
            nn.Sigmoid())

    def forward(self, inputs):
        inputs = inputs.view(-1, 28*28)
        return self.main(inputs)


def main():
    torch.manual_seed(0)
    G = Generator()
    D = Discriminator()
    criterion = nn.BCELoss()
    G_optimizer = Adam(G.parameters(), lr=0.0002, betas=(0.5, 0.999))
    D_optimizer = Adam(D.parameters(), lr=0.0002, betas=(0.5, 0.999))
    dataloader = [(torch.rand(8, 1, 28, 28) * 2 - 1, None) for _ in range(2)]
    D_losses, G_losses = [], []
    for real_data, _ in dataloader:
        batch_size = real_data.size(0)
        real_data = Variable(real_data)

        target_real = Variable(torch.ones(batch_size, 1))
        target_fake = Variable(torch.zeros(batch_size, 1))

        D_result_from_real = D(real_data)
        D_loss_real = criterion(D_result_from_real, target_real)

        z = Variable(torch.randn((batch_size, 16)))
        fake_data = G(z)
        D_result_from_fake = D(fake_data)
        D_loss_fake = criterion(D_result_from_fake, target_fake)

        D_loss = D_loss_real + D_loss_fake

        D.zero_grad()
        D_loss.backward()
        D_optimizer.step()
        D_losses.append(D_loss.detach())

        z = Variable(torch.randn((batch_size, 16)))
        fake_data = G(z)
        D_result_from_fake = D(fake_data)
        G_loss = criterion(D_result_from_fake, target_real)

        G.zero_grad()
        G_loss.backward()
        G_optimizer.step()
        G_losses.append(G_loss.detach())

    out = {"D_losses": D_losses, "G_losses": G_losses}
    for prefix, m in (("G", G), ("D", D)):
        for name, p in m.named_parameters():
            out[prefix + "." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
