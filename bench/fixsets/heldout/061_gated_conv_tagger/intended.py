import torch
import torch.nn as nn


class GatedConv1d(nn.Module):
    """Channel-gated temporal convolution over a (batch, time, channels) sequence."""

    def __init__(self, channels, kernel_size=3):
        super().__init__()
        self.gate_logits = nn.Parameter(torch.zeros(channels))
        self.conv = nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x):
        xt = x.transpose(1, 2)  # (B, C, T)
        xt = xt * torch.sigmoid(self.gate_logits)[None, :, None]
        return self.conv(xt).transpose(1, 2)


class Tagger(nn.Module):
    def __init__(self, d_in=5, d=8, n_tags=4):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.block = GatedConv1d(d)
        self.out = nn.Linear(d, n_tags)

    def forward(self, x):
        h = torch.tanh(self.inp(x))
        h = self.block(h)
        return self.out(torch.relu(h))


def main():
    torch.manual_seed(0)
    model = Tagger()
    x = torch.randn(3, 7, 5)
    tags = torch.randint(0, 4, (3, 7))
    logits = model(x)
    loss = nn.functional.cross_entropy(logits.reshape(-1, 4), tags.reshape(-1))
    loss.backward()
    return {
        "logits": logits.detach(),
        "loss": loss.item(),
        "grads": {n: p.grad for n, p in model.named_parameters()},
    }


if __name__ == "__main__":
    main()
