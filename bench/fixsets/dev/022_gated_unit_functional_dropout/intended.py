import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedLinearUnit(nn.Module):
    def __init__(self, d, p=0.25):
        super().__init__()
        self.value = nn.Linear(d, d)
        self.gate = nn.Linear(d, d)
        self.p = p

    def forward(self, x):
        g = torch.sigmoid(self.gate(x))
        g = F.dropout(g, self.p, training=self.training, inplace=False)
        return self.value(x) * g


def main():
    torch.manual_seed(0)
    glu = GatedLinearUnit(6)
    head = nn.Linear(6, 1)
    x = torch.randn(8, 6)
    y = torch.randn(8, 1)
    pred = head(glu(x))
    loss = F.mse_loss(pred, y)
    loss.backward()
    return {"pred": pred.detach(), "loss": loss.detach(),
            "gate.weight.grad": glu.gate.weight.grad, "value.weight.grad": glu.value.weight.grad,
            "head.weight.grad": head.weight.grad}


if __name__ == "__main__":
    main()
