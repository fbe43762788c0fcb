import torch
import torch.nn as nn


def standardize_(x, eps=1e-5):
    x.sub_(x.mean(0, keepdim=True)).div_(x.std(0, keepdim=True) + eps)
    return x


def saliency(model, x, target_cls):
    z = standardize_(x)
    logits = model(z)
    return logits[:, target_cls].sum()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 3))
    x = torch.randn(16, 5, requires_grad=True)
    score = saliency(model, x, target_cls=1)
    score.backward()
    return {"score": score.detach(), "saliency": x.grad.abs()}


if __name__ == "__main__":
    main()
