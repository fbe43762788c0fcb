import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class CheckpointedStage(nn.Module):
    """A pipeline stage run under torch.utils.checkpoint to save memory."""

    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 3, padding=1)
        self.body = nn.Sequential(
            nn.InstanceNorm1d(channels),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        x = self.conv(x)
        return checkpoint(self.body, x, use_reentrant=True)


def main():
    torch.manual_seed(0)
    stage = CheckpointedStage(2)
    head = nn.Linear(4, 1)
    x = torch.randn(3, 2, 4, requires_grad=True)
    y = stage(x)
    out = head(y)
    loss = out.norm()
    loss.backward()
    return {
        "y": y.detach(),
        "loss": loss.item(),
        "x.grad": x.grad,
        "conv.weight.grad": stage.conv.weight.grad,
        "conv.bias.grad": stage.conv.bias.grad,
        "head.weight.grad": head.weight.grad,
    }


if __name__ == "__main__":
    main()
