"""SRGAN training loop (leftthomas/SRGAN train.py, 2020 version), reduced.

D is stepped, then g_loss (built from the fake_out computed before that step)
is backpropagated through the discriminator whose weights optimizerD.step()
just rewrote in place.
"""
import torch
import torch.optim as optim

from loss import GeneratorLoss
from model import Generator, Discriminator

UPSCALE_FACTOR = 2
NUM_BATCHES = 2


def make_loader():
    g = torch.Generator().manual_seed(1)
    batches = []
    for _ in range(NUM_BATCHES):
        target = torch.rand(2, 3, 16, 16, generator=g)
        data = torch.nn.functional.avg_pool2d(target, UPSCALE_FACTOR)
        batches.append((data, target))
    return batches


def main():
    torch.manual_seed(0)
    train_loader = make_loader()

    netG = Generator(UPSCALE_FACTOR)
    netD = Discriminator()
    generator_criterion = GeneratorLoss()

    optimizerG = optim.Adam(netG.parameters())
    optimizerD = optim.Adam(netD.parameters())

    results = {'d_loss': [], 'g_loss': [], 'd_score': [], 'g_score': []}

    netG.train()
    netD.train()
    for data, target in train_loader:
        ############################
        # (1) Update D network: maximize D(x)-1-D(G(z))
        ###########################
        real_img = target
        z = data
        fake_img = netG(z)

        netD.zero_grad()
        real_out = netD(real_img).mean()
        fake_out = netD(fake_img).mean()
        d_loss = 1 - real_out + fake_out
        d_loss.backward(retain_graph=True)
        optimizerD.step()

        ############################
        # (2) Update G network: minimize 1-D(G(z)) + Perception Loss + Image Loss + TV Loss
        ###########################
        netG.zero_grad()
        g_loss = generator_criterion(fake_out, fake_img, real_img)
        g_loss.backward()

        fake_img = netG(z)
        fake_out = netD(fake_img).mean()

        optimizerG.step()

        results['g_loss'].append(g_loss.item())
        results['d_loss'].append(d_loss.item())
        results['d_score'].append(real_out.item())
        results['g_score'].append(fake_out.item())

    results['netG'] = [p.detach().clone() for p in netG.parameters()]
    results['netD'] = [p.detach().clone() for p in netD.parameters()]
    return results


if __name__ == "__main__":
    main()
