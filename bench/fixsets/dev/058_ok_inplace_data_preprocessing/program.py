import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_(img, mean, std):
    img.sub_(mean).div_(std)
    return img


def random_hflip_(batch, gen):
    flip = torch.rand(batch.shape[0], generator=gen) < 0.5
    batch[flip] = batch[flip].flip(-1)
    return batch


def add_noise_(batch, gen, sigma=0.05):
    batch.add_(sigma * torch.randn(batch.shape, generator=gen)).clamp_(-3.0, 3.0)
    return batch


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(123)
    mean = torch.tensor([0.5, 0.4]).view(1, 2, 1, 1)
    std = torch.tensor([0.2, 0.25]).view(1, 2, 1, 1)
    model = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(inplace=True), nn.Flatten(), nn.Linear(4 * 4 * 4, 2))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    raw = torch.rand(8, 2, 6, 6)
    labels = torch.randint(0, 2, (8,))
    for epoch in range(2):
        batch = raw.clone()
        normalize_(batch, mean, std)
        random_hflip_(batch, gen)
        add_noise_(batch, gen)
        loss = F.cross_entropy(model(batch), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "last_batch": batch, "raw": raw,
            "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
