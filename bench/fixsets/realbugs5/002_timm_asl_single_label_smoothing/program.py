"""Train a small classifier head with timm's AsymmetricLossSingleLabel (label smoothing on)."""
import torch
import torch.nn as nn

from asymmetric_loss import AsymmetricLossSingleLabel


class Head(nn.Module):
    def __init__(self, in_features, num_classes):
        super(Head, self).__init__()
        self.fc1 = nn.Linear(in_features, 16)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


def train_one_step(model, criterion, optimizer, x, y):
    output = model(x)
    loss = criterion(output, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return output, loss


def main():
    torch.manual_seed(0)
    model = Head(8, 5)
    criterion = AsymmetricLossSingleLabel(gamma_pos=0, gamma_neg=4, eps=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(6, 8)
    y = torch.randint(0, 5, (6,))
    output, loss = train_one_step(model, criterion, optimizer, x, y)
    out = {"output": output.detach(), "loss": loss.detach(),
           "smoothed_targets": criterion.targets_classes.detach().clone()}
    for name, p in model.named_parameters():
        out["grad." + name] = p.grad.clone()
        out["param." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
