import torch
import torch.nn as nn


class AffineProbe(nn.Module):
    def __init__(self, n_features, n_out):
        super().__init__()
        self.linear = nn.Linear(n_features, n_out, bias=False)

    def forward(self, x):
        flat = x.view(x.shape[0], -1)
        flat[:, 0] = 1.0  # first pixel acts as the bias input
        return self.linear(flat)


def saliency(model, images, labels):
    images.requires_grad_(True)
    scores = model(images)
    picked = scores.gather(1, labels[:, None]).sum()
    picked.backward()
    return scores.detach(), images.grad.abs()


def main():
    torch.manual_seed(0)
    probe = AffineProbe(16, 3)
    images = torch.rand(4, 1, 4, 4)
    labels = torch.tensor([0, 2, 1, 2])
    scores, sal = saliency(probe, images, labels)
    return {"scores": scores, "saliency": sal, "images": images.detach(),
            "weight.grad": probe.linear.weight.grad}


if __name__ == "__main__":
    main()
