"""solver.py"""
import torch
import torch.optim as optim
import torch.nn.functional as F

from ops import recon_loss, kl_divergence, permute_dims
from model import FactorVAE1, Discriminator


class Solver(object):
    def __init__(self, args):
        self.device = 'cpu'
        self.max_iter = args.max_iter
        self.z_dim = args.z_dim
        self.gamma = args.gamma
        self.lr_VAE = args.lr_VAE
        self.beta1_VAE = args.beta1_VAE
        self.beta2_VAE = args.beta2_VAE
        self.lr_D = args.lr_D
        self.beta1_D = args.beta1_D
        self.beta2_D = args.beta2_D
        self.data_loader = args.data_loader

        self.VAE = FactorVAE1(self.z_dim).to(self.device)
        self.optim_VAE = optim.Adam(self.VAE.parameters(), lr=self.lr_VAE,
                                    betas=(self.beta1_VAE, self.beta2_VAE))

        self.D = Discriminator(self.z_dim).to(self.device)
        self.optim_D = optim.Adam(self.D.parameters(), lr=self.lr_D,
                                  betas=(self.beta1_D, self.beta2_D))
        self.history = []

    def train(self):
        self.net_mode(train=True)

        ones = torch.ones(self.data_loader[0][0].size(0), dtype=torch.long, device=self.device)
        zeros = torch.zeros(self.data_loader[0][0].size(0), dtype=torch.long, device=self.device)

        self.global_iter = 0
        out = False
        while not out:
            for x_true1, x_true2 in self.data_loader:
                self.global_iter += 1

                x_true1 = x_true1.to(self.device)
                x_recon, mu, logvar, z = self.VAE(x_true1)
                vae_recon_loss = recon_loss(x_true1, x_recon)
                vae_kld = kl_divergence(mu, logvar)

                D_z = self.D(z)
                vae_tc_loss = (D_z[:, :1] - D_z[:, 1:]).mean()

                vae_loss = vae_recon_loss + vae_kld + self.gamma*vae_tc_loss

                self.optim_VAE.zero_grad()
                vae_loss.backward(retain_graph=True)
                self.optim_VAE.step()

                x_true2 = x_true2.to(self.device)
                z_prime = self.VAE(x_true2, no_dec=True)
                z_pperm = permute_dims(z_prime).detach()
                D_z_pperm = self.D(z_pperm)
                D_tc_loss = 0.5*(F.cross_entropy(D_z, zeros) + F.cross_entropy(D_z_pperm, ones))

                self.optim_D.zero_grad()
                D_tc_loss.backward()
                self.optim_D.step()

                self.history.append((vae_recon_loss.item(), vae_kld.item(), vae_tc_loss.item(),
                                     D_tc_loss.item()))

                if self.global_iter >= self.max_iter:
                    out = True
                    break

    def net_mode(self, train):
        if not isinstance(train, bool):
            raise ValueError('Only bool type is supported. True|False')

        for net in [self.VAE, self.D]:
            if train:
                net.train()
            else:
                net.eval()
