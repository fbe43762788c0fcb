"""Machine-Learning-Collection (aladdinpersson) YOLOv1 from scratch, reduced: training steps
with YoloLoss, whose box term replaces w, h of the predicted boxes in place by
sign(w) * sqrt(|w|) (issue #87 asks about this in-place write)."""
import torch
import torch.nn as nn
import torch.optim as optim

from loss import YoloLoss


class Yolov1(nn.Module):
    def __init__(self, in_channels=3, split_size=7, num_boxes=2, num_classes=20):
        super(Yolov1, self).__init__()
        self.darknet = nn.Sequential(
            nn.Conv2d(in_channels, 8, kernel_size=3, stride=2, padding=1, bias=False),
            nn.BatchNorm2d(8),
            nn.LeakyReLU(0.1),
            nn.MaxPool2d(kernel_size=2, stride=2),
        )
        S, B, C = split_size, num_boxes, num_classes
        self.fcs = nn.Sequential(
            nn.Flatten(),
            nn.Linear(8 * 7 * 7, 32),
            nn.Dropout(0.0),
            nn.LeakyReLU(0.1),
            nn.Linear(32, S * S * (C + B * 5)),
        )

    def forward(self, x):
        x = self.darknet(x)
        return self.fcs(torch.flatten(x, start_dim=1))


def make_target(n, S=7, C=20):
    target = torch.zeros(n, S, S, C + 10)
    exists = (torch.rand(n, S, S) < 0.3).float()
    cls = torch.randint(0, C, (n, S, S))
    target[..., :C] = torch.nn.functional.one_hot(cls, C).float() * exists[..., None]
    target[..., 20] = exists
    target[..., 21:23] = torch.rand(n, S, S, 2) * exists[..., None]
    target[..., 23:25] = (torch.rand(n, S, S, 2) * 3 + 0.1) * exists[..., None]
    return target


def main():
    torch.manual_seed(0)
    model = Yolov1(split_size=7, num_boxes=2, num_classes=20)
    optimizer = optim.Adam(model.parameters(), lr=2e-5, weight_decay=0)
    loss_fn = YoloLoss()
    mean_loss = []
    for batch_idx in range(2):
        x = torch.randn(2, 3, 28, 28)
        y = make_target(2)
        out = model(x)
        loss = loss_fn(out, y)
        mean_loss.append(loss.item())
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    result = {'mean_loss': mean_loss}
    for name, p in model.named_parameters():
        result[name] = p.detach().clone()
        result['grad.' + name] = p.grad.detach().clone()
    for name, b in model.named_buffers():
        result['buffer.' + name] = b.detach().clone()
    return result


if __name__ == "__main__":
    main()
