import torch
import torch.nn as nn
import torch.nn.functional as F


class CAMNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(inplace=True),
            nn.Conv2d(8, 8, 3, padding=1),
        )
        self.classifier = nn.Conv2d(8, n_classes, 1)

    def forward(self, x):
        cams = self.classifier(self.features(x))
        logits = cams.mean(dim=(2, 3))
        return logits, cams


def normalise_cams(cams):
    cams = F.relu(cams)
    cams = cams - cams.amin(dim=(2, 3), keepdim=True)
    cams = cams / (cams.amax(dim=(2, 3), keepdim=True) + 1e-5)
    return cams


def train_step(model, opt, images, labels):
    logits, cams = model(images)
    _, cams_flip = model(torch.flip(images, dims=[3]))
    cls_loss = F.cross_entropy(logits, labels)
    eq_loss = (normalise_cams(cams) - torch.flip(normalise_cams(cams_flip), dims=[3])).abs().mean()
    loss = cls_loss + 0.5 * eq_loss
    opt.zero_grad()
    loss.backward()
    opt.step()
    return cls_loss.item(), eq_loss.item()


def main():
    torch.manual_seed(0)
    model = CAMNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    images = torch.randn(4, 1, 8, 8)
    labels = torch.tensor([0, 1, 2, 1])
    log = [train_step(model, opt, images, labels) for _ in range(2)]
    result = {"log": log}
    for name, p in model.named_parameters():
        result[name] = p.detach().clone()
    return result


if __name__ == "__main__":
    main()
