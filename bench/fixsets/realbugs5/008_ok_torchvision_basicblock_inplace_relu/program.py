"""One SGD step of a small torchvision-style ResNet whose blocks use nn.ReLU(inplace=True)."""
import torch
import torch.nn as nn

from resnet import BasicBlock, ResNet


def main():
    torch.manual_seed(0)
    model = ResNet(BasicBlock, [2, 2])
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    images = torch.randn(4, 3, 8, 8)
    target = torch.randint(0, 10, (4,))
    model.train()
    output = model(images)
    loss = criterion(output, target)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"output": output.detach(), "loss": loss.detach()}
    for name, p in model.named_parameters():
        out["grad." + name] = p.grad.clone()
        out["param." + name] = p.detach().clone()
    for name, b in model.named_buffers():
        out["buffer." + name] = b.clone()
    return out


if __name__ == "__main__":
    main()
