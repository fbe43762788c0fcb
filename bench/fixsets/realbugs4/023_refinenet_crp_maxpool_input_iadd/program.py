"""pytorch_refinenet (v0.2.2, commit 8a0bef0): RefineNet4Cascade trained on random data.

The training step is the one the maintainer added to tests/test_refinenet.py with the fix (MSE loss on the
8x8 output, zero_grad, backward), plus an SGD step; sizes are shrunk (batch 2, features=8).
"""
import torch
import torch.nn as nn

from refinenet_4cascade import RefineNet4Cascade


def main():
    torch.manual_seed(0)
    net = RefineNet4Cascade(input_shape=(3, 32), num_classes=2, features=8, pretrained=False)
    optimizer = torch.optim.SGD([p for p in net.parameters() if p.requires_grad], lr=0.01, momentum=0.9)
    criterion = nn.MSELoss()
    losses = []
    for _ in range(2):
        x = torch.randn(2, 3, 32, 32)
        target = torch.randn(2, 2, 8, 8)
        output = net(x)
        loss = criterion(output, target)
        net.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return {"losses": losses,
            "crp_block1_conv": net.refinenet1.crp.block1[1].weight.detach().clone(),
            "output_conv": net.output_conv[2].weight.detach().clone()}


if __name__ == "__main__":
    main()
