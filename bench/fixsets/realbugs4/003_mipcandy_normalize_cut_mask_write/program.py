"""A small restoration head trained with MIPCandy's Normalize(method="cut") as its output layer."""
import torch
from torch import nn

from preprocess import Normalize


class RestorationNet(nn.Module):
    def __init__(self, channels: int = 4) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, 1, 3, padding=1),
            nn.ReLU(),
        )
        self.normalize = Normalize(domain=(0, 1), method="cut")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.normalize(self.body(x))


def main():
    torch.manual_seed(0)
    model = RestorationNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    image = torch.rand(2, 1, 8, 8)
    target = torch.rand(2, 1, 8, 8)
    losses = []
    for _ in range(2):
        optimizer.zero_grad()
        out = model(image * 3.0)
        loss = nn.functional.l1_loss(out, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    return {"losses": losses, "out": out.detach(),
            "conv0_weight": model.body[0].weight.detach().clone(),
            "conv2_weight": model.body[2].weight.detach().clone()}


if __name__ == "__main__":
    main()
