"""RN (region normalization inpainting) main.py train(): one epoch over two batches."""
import torch

from models import InpaintingModel


def train(model, training_data_loader):
    iteration, avg_g_loss, avg_d_loss, avg_l1_loss, avg_gan_loss = 0, 0, 0, 0, 0
    model.train()
    for batch in training_data_loader:
        gt, mask, index = batch

        prediction = model.generator(gt, mask)
        merged_result = prediction * mask + gt * (1 - mask)

        # Compute Loss
        g_loss, d_loss = 0, 0

        d_real, _ = model.discriminator(gt)
        d_fake, _ = model.discriminator(prediction.detach())
        d_real_loss = model.adversarial_loss(d_real, True, True)
        d_fake_loss = model.adversarial_loss(d_fake, False, True)
        d_loss += (d_real_loss + d_fake_loss) / 2

        # Backward
        d_loss.backward()
        model.dis_optimizer.step()
        model.dis_optimizer.zero_grad()

        g_fake, _ = model.discriminator(prediction)
        g_gan_loss = model.adversarial_loss(g_fake, True, False)
        g_loss += model.gan_weight * g_gan_loss
        g_l1_loss = model.l1_loss(gt, merged_result) / torch.mean(mask)
        g_loss += model.l1_weight * g_l1_loss

        # Record
        avg_l1_loss += g_l1_loss.data.item()
        avg_gan_loss += g_gan_loss.data.item()
        avg_g_loss += g_loss.data.item()
        avg_d_loss += d_loss.data.item()

        # Backward
        g_loss.backward()
        model.gen_optimizer.step()
        model.gen_optimizer.zero_grad()

        model.global_iter += 1
        iteration += 1
    return avg_g_loss, avg_d_loss, avg_l1_loss, avg_gan_loss


def main():
    torch.manual_seed(0)
    model = InpaintingModel(g_lr=1e-4, d_lr=1e-4, l1_weight=1.0, gan_weight=0.1)
    loader = []
    for i in range(2):
        gt = torch.rand(2, 3, 8, 8)
        mask = torch.zeros(2, 3, 8, 8)
        mask[:, :, 2:6, 2:6] = 1
        loader.append((gt, mask, torch.tensor([2 * i, 2 * i + 1])))
    losses = train(model, loader)
    return {"losses": list(losses),
            "gen_first_conv": model.generator.encoder[0].weight.detach().clone(),
            "dis_conv1": model.discriminator.conv1[0].weight_orig.detach().clone()}


if __name__ == "__main__":
    main()
