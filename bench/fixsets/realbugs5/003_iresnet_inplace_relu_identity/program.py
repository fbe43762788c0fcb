"""One training step of a (tiny) iResNet on random images, as in main.py's train loop."""
import torch
import torch.nn as nn

from iresnet import iresnet_tiny


def train_step(model, criterion, optimizer, images, target):
    output = model(images)
    loss = criterion(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return output, loss


def main():
    torch.manual_seed(0)
    model = iresnet_tiny()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    images = torch.randn(4, 3, 8, 8)
    target = torch.randint(0, 10, (4,))
    model.train()
    output, loss = train_step(model, criterion, optimizer, images, target)
    out = {"output": output.detach(), "loss": loss.detach()}
    for name, p in model.named_parameters():
        out["grad." + name] = p.grad.clone()
        out["param." + name] = p.detach().clone()
    for name, b in model.named_buffers():
        out["buffer." + name] = b.clone()
    return out


if __name__ == "__main__":
    main()
