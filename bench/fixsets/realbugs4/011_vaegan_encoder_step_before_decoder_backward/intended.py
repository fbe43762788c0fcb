"""ry85/VAE-GAN main.py training loop (three RMSprop optimizers, selective backprop)."""
import torch
from torch.optim import RMSprop

from network import VaeGan


def main():
    torch.manual_seed(0)
    lr, lambda_mse = 3e-4, 1e-6
    net = VaeGan(z_size=8, recon_level=1)
    margin = 0.35
    equilibrium = 0.68
    optimizer_encoder = RMSprop(params=net.encoder.parameters(), lr=lr, alpha=0.9, eps=1e-8)
    optimizer_decoder = RMSprop(params=net.decoder.parameters(), lr=lr, alpha=0.9, eps=1e-8)
    optimizer_discriminator = RMSprop(params=net.discriminator.parameters(), lr=lr, alpha=0.9, eps=1e-8)
    train_loader = [(torch.rand(4, 3, 16, 16) * 2 - 1, None) for _ in range(2)]
    history = []
    for j, (x, label) in enumerate(train_loader):
        net.train()
        batch_size = len(x)
        x_tilde, disc_class, disc_layer, mus, log_variances = net(x)

        # split so we can get the different parts
        disc_layer_original = disc_layer[:batch_size]
        disc_layer_predicted = disc_layer[batch_size:-batch_size]
        disc_layer_sampled = disc_layer[-batch_size:]

        disc_class_original = disc_class[:batch_size]
        disc_class_predicted = disc_class[batch_size:-batch_size]
        disc_class_sampled = disc_class[-batch_size:]

        nle, kl, mse, bce_dis_original, bce_dis_predicted, bce_dis_sampled = VaeGan.loss(
            x, x_tilde, disc_layer_original, disc_layer_predicted, disc_layer_sampled,
            disc_class_original, disc_class_predicted, disc_class_sampled, mus, log_variances)

        # THIS IS THE MOST IMPORTANT PART OF THE CODE
        loss_encoder = torch.sum(kl) + torch.sum(mse)
        loss_discriminator = torch.sum(bce_dis_original) + torch.sum(bce_dis_predicted) + torch.sum(bce_dis_sampled)
        loss_decoder = torch.sum(lambda_mse * mse) - (1.0 - lambda_mse) * loss_discriminator

        # selectively disable the decoder of the discriminator if they are unbalanced
        train_dis = True
        train_dec = True
        if torch.mean(bce_dis_original).item() < equilibrium - margin or torch.mean(bce_dis_predicted).item() < equilibrium - margin:
            train_dis = False
        if torch.mean(bce_dis_original).item() > equilibrium + margin or torch.mean(bce_dis_predicted).item() > equilibrium + margin:
            train_dec = False
        if train_dec is False and train_dis is False:
            train_dis = True
            train_dec = True

        net.zero_grad()

        # encoder
        loss_encoder.backward(retain_graph=True)
        net.decoder.zero_grad()
        net.discriminator.zero_grad()

        if train_dec and train_dis:
            loss_decoder.backward(retain_graph=True)
            net.discriminator.zero_grad()
            loss_discriminator.backward()
            optimizer_encoder.step()
            optimizer_decoder.step()
            optimizer_discriminator.step()
        # decoder
        if train_dec and not train_dis:
            loss_decoder.backward()
            optimizer_decoder.step()
            optimizer_encoder.step()
            optimizer_discriminator.step()
        # discriminator
        if not train_dec and train_dis:
            loss_discriminator.backward()
            optimizer_encoder.step()
            optimizer_decoder.step()
            optimizer_discriminator.step()

        history.append([loss_encoder.item(), loss_decoder.item(), loss_discriminator.item()])
    return {"history": history,
            "enc_l_mu": net.encoder.l_mu.weight.detach().clone(),
            "dec_fc": net.decoder.fc[0].weight.detach().clone(),
            "dis_fc": net.discriminator.fc[3].weight.detach().clone()}


if __name__ == "__main__":
    main()
