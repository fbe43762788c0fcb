import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def color_jitter_(arr, rng, strength=0.3):
    arr *= 1 + strength * (rng.random((arr.shape[0], 1, 1, 1)) - 0.5)
    arr += strength * (rng.random((arr.shape[0], 1, 1, 1)) - 0.5)
    np.clip(arr, 0.0, 1.0, out=arr)
    return arr


def main():
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4, 2))
    opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    img = torch.rand(6, 3, 8, 8)
    y = torch.randint(0, 2, (6,))
    for _ in range(2):
        loss_clean = F.cross_entropy(net(img), y)
        aug = color_jitter_(img.clone().numpy(), rng)
        loss_aug = F.cross_entropy(net(torch.from_numpy(aug)), y)
        loss = loss_clean + loss_aug
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "img": img, "params": [p.detach().clone() for p in net.parameters()]}


if __name__ == "__main__":
    main()
