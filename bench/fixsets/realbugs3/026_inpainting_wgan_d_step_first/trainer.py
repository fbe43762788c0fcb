import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Generator(nn.Module):
    def __init__(self, cnum=4):
        super().__init__()
        self.coarse = nn.Sequential(nn.Conv2d(5, cnum, 3, padding=1), nn.ELU(), nn.Conv2d(cnum, 3, 3, padding=1))
        self.fine = nn.Sequential(nn.Conv2d(5, cnum, 3, padding=1), nn.ELU(), nn.Conv2d(cnum, 3, 3, padding=1))

    def forward(self, x, mask):
        ones = torch.ones(x.size(0), 1, x.size(2), x.size(3))
        x1 = torch.clamp(self.coarse(torch.cat([x, ones, mask], 1)), -1., 1.)
        x1_inpaint = x1 * mask + x * (1. - mask)
        x2 = torch.clamp(self.fine(torch.cat([x1_inpaint, ones, mask], 1)), -1., 1.)
        return x1, x2, torch.zeros_like(x2)


class Discriminator(nn.Module):
    def __init__(self, cnum=4, size=8):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(3, cnum, 3, stride=2, padding=1), nn.LeakyReLU(0.2))
        self.linear = nn.Linear(cnum * (size // 2) * (size // 2), 1)

    def forward(self, x):
        return self.linear(self.conv(x).flatten(1))


class Trainer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.netG = Generator()
        self.localD = Discriminator(size=4)
        self.globalD = Discriminator(size=8)
        self.optimizer_g = torch.optim.Adam(self.netG.parameters(), lr=config['lr'], betas=(0.5, 0.9))
        d_params = list(self.localD.parameters()) + list(self.globalD.parameters())
        self.optimizer_d = torch.optim.Adam(d_params, lr=config['lr'], betas=(0.5, 0.9))

    def forward(self, x, bboxes, masks, ground_truth, compute_loss_g=False):
        self.train()
        losses = {}
        x1, x2, offset_flow = self.netG(x, masks)
        t, l, h, w = bboxes
        local_patch_gt = ground_truth[:, :, t:t + h, l:l + w]
        x1_inpaint = x1 * masks + x * (1. - masks)
        x2_inpaint = x2 * masks + x * (1. - masks)
        local_patch_x1_inpaint = x1_inpaint[:, :, t:t + h, l:l + w]
        local_patch_x2_inpaint = x2_inpaint[:, :, t:t + h, l:l + w]

        # D part
        local_patch_real_pred, local_patch_fake_pred = self.dis_forward(self.localD, local_patch_gt, local_patch_x2_inpaint.detach())
        global_real_pred, global_fake_pred = self.dis_forward(self.globalD, ground_truth, x2_inpaint.detach())
        losses['wgan_d'] = torch.mean(local_patch_fake_pred - local_patch_real_pred) + \
            torch.mean(global_fake_pred - global_real_pred) * self.config['global_wgan_loss_alpha']
        local_penalty = self.calc_gradient_penalty(self.localD, local_patch_gt, local_patch_x2_inpaint.detach())
        global_penalty = self.calc_gradient_penalty(self.globalD, ground_truth, x2_inpaint.detach())
        losses['wgan_gp'] = local_penalty + global_penalty

        # G part
        if compute_loss_g:
            losses['l1'] = F.l1_loss(local_patch_x1_inpaint, local_patch_gt) * self.config['coarse_l1_alpha'] + \
                F.l1_loss(local_patch_x2_inpaint, local_patch_gt)
            losses['ae'] = F.l1_loss(x1 * (1. - masks), ground_truth * (1. - masks)) * self.config['coarse_l1_alpha'] + \
                F.l1_loss(x2 * (1. - masks), ground_truth * (1. - masks))
            local_patch_real_pred, local_patch_fake_pred = self.dis_forward(self.localD, local_patch_gt, local_patch_x2_inpaint)
            global_real_pred, global_fake_pred = self.dis_forward(self.globalD, ground_truth, x2_inpaint)
            losses['wgan_g'] = - torch.mean(local_patch_fake_pred) - \
                torch.mean(global_fake_pred) * self.config['global_wgan_loss_alpha']
        return losses, x2_inpaint, offset_flow

    def dis_forward(self, netD, ground_truth, x_inpaint):
        batch_size = ground_truth.size(0)
        batch_data = torch.cat([ground_truth, x_inpaint], dim=0)
        batch_output = netD(batch_data)
        real_pred, fake_pred = torch.split(batch_output, batch_size, dim=0)
        return real_pred, fake_pred

    def calc_gradient_penalty(self, netD, real_data, fake_data):
        batch_size = real_data.size(0)
        alpha = torch.rand(batch_size, 1, 1, 1).expand_as(real_data)
        interpolates = alpha * real_data + (1 - alpha) * fake_data
        interpolates = interpolates.requires_grad_()
        disc_interpolates = netD(interpolates)
        gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                  grad_outputs=torch.ones(disc_interpolates.size()),
                                  create_graph=True, retain_graph=True, only_inputs=True)[0]
        gradients = gradients.view(gradients.size(0), -1)
        return ((gradients.norm(2, dim=1) - 1) ** 2).mean()
