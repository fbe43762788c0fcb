import argparse

import torch

from network import GatedGenerator, PatchDiscriminator, PerceptualNet


def get_opt():
    parser = argparse.ArgumentParser()
    parser.add_argument('--lambda_l1', type=float, default=10)
    parser.add_argument('--lambda_perceptual', type=float, default=0.05)
    parser.add_argument('--lambda_gan', type=float, default=0.1)
    parser.add_argument('--lr_g', type=float, default=1e-4)
    parser.add_argument('--lr_d', type=float, default=1e-4)
    return parser.parse_args([])


def trainer(opt, generator, discriminator, perceptualnet, dataloader):
    optimizer_g1 = torch.optim.Adam(generator.coarse.parameters(), lr=opt.lr_g)
    optimizer_g = torch.optim.Adam(generator.parameters(), lr=opt.lr_g)
    optimizer_d = torch.optim.Adam(discriminator.parameters(), lr=opt.lr_d)
    L1Loss = torch.nn.L1Loss()
    history = []
    for batch_idx, (img, mask) in enumerate(dataloader):
        # Generator output
        first_out, second_out = generator(img, mask)
        first_out_wholeimg = img * (1 - mask) + first_out * mask
        second_out_wholeimg = img * (1 - mask) + second_out * mask

        # Train discriminator
        optimizer_d.zero_grad()
        fake_scalar = discriminator(second_out_wholeimg.detach(), mask)
        true_scalar = discriminator(img, mask)
        loss_D = torch.mean(torch.relu(1. - true_scalar)) + torch.mean(torch.relu(1. + fake_scalar))
        loss_D.backward()
        optimizer_d.step()

        # Train generator: coarse stage first
        optimizer_g1.zero_grad()
        first_MaskL1Loss = L1Loss(first_out_wholeimg, img)
        first_MaskL1Loss.backward(retain_graph=True)
        optimizer_g1.step()

        # then the whole generator, on a fresh forward (the coarse weights changed)
        first_out, second_out = generator(img, mask)
        first_out_wholeimg = img * (1 - mask) + first_out * mask
        second_out_wholeimg = img * (1 - mask) + second_out * mask
        first_MaskL1Loss = L1Loss(first_out_wholeimg, img)
        optimizer_g.zero_grad()
        second_MaskL1Loss = L1Loss(second_out_wholeimg, img)
        fake_scalar = discriminator(second_out_wholeimg, mask)
        GAN_Loss = - torch.mean(fake_scalar)
        second_PerceptualLoss = L1Loss(perceptualnet(second_out_wholeimg), perceptualnet(img))
        loss = 0.5 * opt.lambda_l1 * first_MaskL1Loss + opt.lambda_l1 * second_MaskL1Loss + \
            opt.lambda_gan * GAN_Loss + second_PerceptualLoss * opt.lambda_perceptual
        loss.backward()
        optimizer_g.step()
        history.append((loss_D.item(), loss.item()))
    return history


def main():
    torch.manual_seed(0)
    opt = get_opt()
    generator = GatedGenerator()
    discriminator = PatchDiscriminator()
    perceptualnet = PerceptualNet()
    dataloader = []
    for _ in range(2):
        mask = torch.zeros(2, 1, 8, 8)
        mask[:, :, 2:6, 2:6] = 1.
        dataloader.append((torch.rand(2, 3, 8, 8) * 2 - 1, mask))
    history = trainer(opt, generator, discriminator, perceptualnet, dataloader)
    out = {"history": history}
    for prefix, m in (("G", generator), ("D", discriminator)):
        for n, p in m.named_parameters():
            out[prefix + "." + n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
