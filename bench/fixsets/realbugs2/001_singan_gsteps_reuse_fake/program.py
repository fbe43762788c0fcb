"""SinGAN train_single_scale (tamarott/SinGAN, issue #148): the generator loop runs
opt.Gsteps=3 steps on the `fake` produced in the last discriminator step; from the
second step on, errG backpropagates through netG weights that optimizerG.step() has
already rewritten in place."""
from types import SimpleNamespace

import torch

from training import init_models, train_single_scale


def main():
    torch.manual_seed(0)
    opt = SimpleNamespace(nfc=8, nc_im=3, nc_z=3, ker_size=3, padd_size=0, num_layer=3,
                          lr_d=5e-4, lr_g=5e-4, beta1=0.5, niter=1, Dsteps=2, Gsteps=3,
                          lambda_grad=0.1, alpha=10, device='cpu')
    real = torch.rand(1, 3, 10, 10) * 2 - 1
    reals = [real]
    netD, netG = init_models(opt)
    z_opt, in_s, netG, errD, errG = train_single_scale(netD, netG, reals, [], [], 0, [], opt)
    out = {"errD": errD, "errG": errG, "z_opt": z_opt}
    for name, p in netG.named_parameters():
        out["G." + name] = p.detach().clone()
    for name, p in netD.named_parameters():
        out["D." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
