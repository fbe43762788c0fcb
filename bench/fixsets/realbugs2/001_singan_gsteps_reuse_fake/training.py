import torch
import torch.nn as nn
import torch.optim as optim

import functions
from models import WDiscriminator, GeneratorConcatSkip2CleanAdd, weights_init


def init_models(opt):
    netG = GeneratorConcatSkip2CleanAdd(opt)
    netG.apply(weights_init)
    netD = WDiscriminator(opt)
    netD.apply(weights_init)
    return netD, netG


def train_single_scale(netD, netG, reals, Gs, Zs, in_s, NoiseAmp, opt):
    real = reals[len(Gs)]
    opt.nzx = real.shape[2]
    opt.nzy = real.shape[3]
    pad_noise = int(((opt.ker_size - 1) * opt.num_layer) / 2)
    pad_image = int(((opt.ker_size - 1) * opt.num_layer) / 2)
    m_noise = nn.ZeroPad2d(int(pad_noise))
    m_image = nn.ZeroPad2d(int(pad_image))

    alpha = opt.alpha

    optimizerD = optim.Adam(netD.parameters(), lr=opt.lr_d, betas=(opt.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=opt.lr_g, betas=(opt.beta1, 0.999))

    errD2plot, errG2plot = [], []

    for epoch in range(opt.niter):
        if (Gs == []):
            z_opt = functions.generate_noise([1, opt.nzx, opt.nzy])
            z_opt = m_noise(z_opt.expand(1, 3, opt.nzx, opt.nzy))
            noise_ = functions.generate_noise([1, opt.nzx, opt.nzy])
            noise_ = m_noise(noise_.expand(1, 3, opt.nzx, opt.nzy))

        ############################
        # (1) Update D network: maximize D(x) + D(G(z))
        ###########################
        for j in range(opt.Dsteps):
            netD.zero_grad()
            output = netD(real)
            errD_real = -output.mean()
            errD_real.backward(retain_graph=True)

            if (j == 0) & (epoch == 0):
                prev = torch.full([1, opt.nc_z, opt.nzx, opt.nzy], 0.)
                in_s = prev
                prev = m_image(prev)
                z_prev = torch.full([1, opt.nc_z, opt.nzx, opt.nzy], 0.)
                z_prev = m_noise(z_prev)
                opt.noise_amp = 1

            noise = noise_
            fake = netG(noise.detach(), prev)
            output = netD(fake.detach())
            errD_fake = output.mean()
            errD_fake.backward(retain_graph=True)

            gradient_penalty = functions.calc_gradient_penalty(netD, real, fake, opt.lambda_grad, opt.device)
            gradient_penalty.backward()

            errD = errD_real + errD_fake + gradient_penalty
            optimizerD.step()

        errD2plot.append(errD.detach())

        ############################
        # (2) Update G network: maximize D(G(z))
        ###########################
        for j in range(opt.Gsteps):
            netG.zero_grad()
            output = netD(fake)
            errG = -output.mean()
            errG.backward(retain_graph=True)
            if alpha != 0:
                loss = nn.MSELoss()
                Z_opt = opt.noise_amp * z_opt + z_prev
                rec_loss = alpha * loss(netG(Z_opt.detach(), z_prev), real)
                rec_loss.backward(retain_graph=True)
                rec_loss = rec_loss.detach()
            optimizerG.step()

        errG2plot.append(errG.detach() + rec_loss)

    return z_opt, in_s, netG, errD2plot, errG2plot
