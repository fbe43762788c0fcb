"""Relativistic-AdvGAN (GiorgosKarantonis) training with n_steps_G = 2: the reporter's setup
(retain_graph=True added to loss_G.backward())."""
import torch
import torch.nn as nn

from advGAN import AdvGAN_Attack


class TargetModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 10 * 10, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def main():
    torch.manual_seed(0)
    device = torch.device("cpu")
    target_model = TargetModel().eval()
    for p in target_model.parameters():
        p.requires_grad_(False)
    advGAN = AdvGAN_Attack(device, target_model, n_labels=10, n_channels=1, target="none", lr=1e-3,
                           box_min=0, box_max=1, l_inf_bound=0.3, alpha=1, beta=1, gamma=1, kappa=0,
                           c=0.1, n_steps_D=1, n_steps_G=2, clipping_trick=True, is_relativistic=False)
    images = torch.rand(4, 1, 12, 12)
    labels = torch.tensor([1, 3, 5, 7])
    results = []
    for _ in range(2):
        results.append(advGAN.train_batch(images, labels))
    return {"losses": [list(r) for r in results],
            "G_first_conv": advGAN.G.encoder[0].weight.detach().clone(),
            "G_last_deconv": advGAN.G.decoder[3].weight.detach().clone(),
            "D_first_conv": advGAN.D.model[0].weight.detach().clone()}


if __name__ == "__main__":
    main()
