import torch

from trainer import Trainer

config = {'lr': 1e-4, 'n_critic': 2, 'niter': 4, 'wgan_gp_lambda': 10, 'l1_loss_alpha': 1.2, 'ae_loss_alpha': 1.2,
          'gan_loss_alpha': 0.001, 'global_wgan_loss_alpha': 1., 'coarse_l1_alpha': 1.2, 'batch_size': 2}


def random_bbox(config, batch_size):
    return (2, 2, 4, 4)


def mask_image(x, bboxes, config):
    t, l, h, w = bboxes
    mask = torch.zeros(x.size(0), 1, x.size(2), x.size(3))
    mask[:, :, t:t + h, l:l + w] = 1.
    return x * (1. - mask), mask


def main():
    torch.manual_seed(0)
    trainer = Trainer(config)
    trainer_module = trainer
    train_loader = [torch.rand(config['batch_size'], 3, 8, 8) * 2 - 1 for _ in range(2)]
    iterable_train_loader = iter(train_loader)
    history = []
    for iteration in range(1, config['niter'] + 1):
        try:
            ground_truth = next(iterable_train_loader)
        except StopIteration:
            iterable_train_loader = iter(train_loader)
            ground_truth = next(iterable_train_loader)

        # Prepare the inputs
        bboxes = random_bbox(config, batch_size=ground_truth.size(0))
        x, mask = mask_image(ground_truth, bboxes, config)

        ###### Forward pass ######
        compute_g_loss = iteration % config['n_critic'] == 0
        losses, inpainted_result, offset_flow = trainer(x, bboxes, mask, ground_truth, compute_g_loss)

        ###### Backward pass ######
        # Update D
        trainer_module.optimizer_d.zero_grad()
        losses['d'] = losses['wgan_d'] + losses['wgan_gp'] * config['wgan_gp_lambda']
        losses['d'].backward()
        if not compute_g_loss:
            trainer_module.optimizer_d.step()

        # Update G
        if compute_g_loss:
            trainer_module.optimizer_g.zero_grad()
            losses['g'] = losses['l1'] * config['l1_loss_alpha'] \
                + losses['ae'] * config['ae_loss_alpha'] \
                + losses['wgan_g'] * config['gan_loss_alpha']
            losses['g'].backward()
            trainer_module.optimizer_d.step()
            trainer_module.optimizer_g.step()
        history.append({k: v.item() for k, v in losses.items()})

    out = {"d": [h['d'] for h in history], "g": [h['g'] for h in history if 'g' in h]}
    for n, p in trainer.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
