"""Training Xception from pytorchcv (osmr/imgclsmob#13), reduced: a narrow
Xception on 35x35 random images, two SGD steps.
Each XceptionUnit that starts with ReLU applies nn.ReLU(inplace=True) to the
unit's input x, which the identity branch (identity_conv, or identity = x)
also uses.
"""
import torch
import torch.nn.functional as F

from xception import xception


def train(net, optimizer, batches):
    net.train()
    losses = []
    for images, target in batches:
        output = net(images)
        loss = F.cross_entropy(output, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    net = xception(num_classes=10)
    optimizer = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
    g = torch.Generator().manual_seed(1)
    batches = [(torch.randn(4, 3, 35, 35, generator=g), torch.randint(0, 10, (4,), generator=g))
               for _ in range(2)]
    losses = train(net, optimizer, batches)
    return {'losses': losses,
            'params': [p.detach().clone() for p in net.parameters()],
            'buffers': [b.detach().clone() for b in net.buffers()]}


if __name__ == "__main__":
    main()
