import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    conv = nn.Conv2d(2, 3, 3, padding=1)
    head = nn.Linear(3 * 5 * 5, 2)
    opt = torch.optim.SGD(list(conv.parameters()) + list(head.parameters()), lr=0.05)
    images = torch.randn(4, 2, 5, 5)
    labels = torch.tensor([0, 1, 1, 0])

    feat = F.relu(conv(images)).clone()
    feat[..., 0] = 0.0
    feat[:, :, -1, :] = 0.0
    logits = head(feat.flatten(1))
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()

    return {"logits": logits.detach(), "loss": loss.detach(),
            "conv.weight.grad": conv.weight.grad, "conv.bias.grad": conv.bias.grad,
            "conv.weight": conv.weight.detach().clone(), "head.weight": head.weight.detach().clone()}


if __name__ == "__main__":
    main()
