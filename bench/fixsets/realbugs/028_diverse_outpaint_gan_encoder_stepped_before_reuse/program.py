"""DiverseOutpaint (owenzlz) real_image/train.py, reduced: one training iteration runs a
"centroid sample" G/D update and then a "random sample" G/D update that decodes from the
encoder output computed before G_optimizer.step() changed the encoder weights."""
import torch
from torch import nn, optim

import diversity as div
from models import Encoder, Decoder, PSPDiscriminator
from utils import norm, collapse_batch, diverse_sampling, center_sampling

# Configurations and Hyperparameters
batch_size = 2
gpu_id = 'cpu'
lr_rate = 2e-4
num_sample = 2
noise_dim = 4


def main():
    torch.manual_seed(0)
    # Initialize Model
    encoder, decoder, discriminator = Encoder().to(gpu_id), Decoder(noise_dim=noise_dim).to(gpu_id), PSPDiscriminator().to(gpu_id)

    # Initialize Optimizer
    G_optimizer = optim.Adam([{'params': encoder.parameters()}, {'params': decoder.parameters()}], lr=lr_rate)
    D_optimizer = optim.Adam(discriminator.parameters(), lr=lr_rate)

    # Training
    encoder, decoder, discriminator = encoder.train(), decoder.train(), discriminator.train()
    loader = [(torch.rand(batch_size, 3, 16, 16) * 255, (torch.rand(batch_size, 3, 16, 16) > 0.3).float())
              for _ in range(1)]
    log = []
    for idx, images in enumerate(loader):
        high, mask = images
        N, C, H, W = high.shape
        high, mask = high.to(gpu_id), mask.to(gpu_id)
        mask[mask>0] = 1
        low = high*mask
        high, low = norm(high), norm(low)

        ########## Encode LR ##########
        codes, feats = encoder(low)

        ################### Centroid Sample ###################
        diverse_codes, center_noises = center_sampling(codes, num_sample, noise_dim, gpu_id)
        diverse_codes, center_noises = diverse_codes[...,None,None], center_noises[...,None,None]

        ########## Decode HR for diversification objective ##########
        high_hat = decoder(diverse_codes.view(-1, diverse_codes.size(2), 1, 1), [collapse_batch((feat[:,None,...]).expand(-1, num_sample, -1, -1, -1).contiguous()) for feat in feats])
        mask = (mask[:,None,:]).expand(-1,num_sample,-1,-1,-1)
        mask = mask.contiguous().view(-1,mask.shape[2],mask.shape[3],mask.shape[4])
        high_unsqueeze = (high[:,None,:]).expand(-1,num_sample,-1,-1,-1)
        high_unsqueeze = high_unsqueeze.contiguous().view(-1,high_unsqueeze.shape[2],high_unsqueeze.shape[3],high_unsqueeze.shape[4])
        high_center_hat = (1-mask)*high_hat + mask*high_unsqueeze

        ################## Train Discriminator ##################
        D_loss = nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high)), torch.ones(high.size(0),).to(gpu_id)) + nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high_center_hat)), torch.zeros(high_center_hat.size(0),).to(gpu_id))
        D_optimizer.zero_grad()
        D_loss.backward(retain_graph=True)
        D_optimizer.step()

        ########## Reconstruction Loss ##########
        high_recon = torch.nn.MSELoss()(high_center_hat.view(N,num_sample,3,H,W), high.view(N,1,3,H,W).expand(-1,num_sample,-1,-1,-1))

        ########## G Loss ##########
        G_loss = nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high_center_hat)), torch.ones(high_center_hat.size(0),).to(gpu_id))

        total_loss = G_loss + high_recon
        G_optimizer.zero_grad()
        total_loss.backward(retain_graph=True)
        G_optimizer.step()

        ################### Random Sample #####################
        diverse_codes, noises = diverse_sampling(codes, num_sample, noise_dim, gpu_id)
        diverse_codes, noises = diverse_codes[...,None,None], noises[...,None,None]

        high_hat = decoder(diverse_codes.view(-1, diverse_codes.size(2), 1, 1), [collapse_batch((feat[:,None,...]).expand(-1, num_sample, -1, -1, -1).contiguous()) for feat in feats])
        high_unsqueeze = (high[:,None,:]).expand(-1,num_sample,-1,-1,-1)
        high_unsqueeze = high_unsqueeze.contiguous().view(-1,high_unsqueeze.shape[2],high_unsqueeze.shape[3],high_unsqueeze.shape[4])
        high_hat = (1-mask)*high_hat + mask*high_unsqueeze

        ################## Train Discriminator ##################
        D_loss = nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high)), torch.ones(high.size(0),).to(gpu_id)) + nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high_hat)), torch.zeros(high_hat.size(0),).to(gpu_id))
        D_optimizer.zero_grad()
        D_loss.backward(retain_graph=True)
        D_optimizer.step()

        ########## G Loss ##########
        G_loss = nn.BCEWithLogitsLoss()(torch.squeeze(discriminator(high_hat)), torch.ones(high_hat.size(0),).to(gpu_id))

        ########## Div Loss ##########
        pair_div_loss = div.compute_pairwise_divergence(high_hat.view(N,num_sample,3,H,W), noises)
        total_loss = G_loss + 0.5*pair_div_loss
        G_optimizer.zero_grad()
        total_loss.backward()
        G_optimizer.step()

        log.append([G_loss.item(), D_loss.item(), pair_div_loss.item(), high_recon.item()])

    out = {'log': log}
    for prefix, net in (('encoder', encoder), ('decoder', decoder), ('discriminator', discriminator)):
        for name, p in net.named_parameters():
            out[prefix + '.' + name] = p.detach().clone()
        for name, b in net.named_buffers():
            out[prefix + '.buffer.' + name] = b.detach().clone()
    return out


if __name__ == "__main__":
    main()
