import torch
import torch.nn as nn
import torch.nn.functional as F


class Inpainter(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(2, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
            nn.Conv2d(16, 1, 3, padding=1),
        )

    def forward(self, img, known):
        x = torch.cat([img * known, known.float()], dim=1)
        return torch.sigmoid(self.net(x))


def main():
    torch.manual_seed(0)
    model = Inpainter()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    img = torch.rand(3, 1, 8, 8)
    known = torch.rand(3, 1, 8, 8) > 0.4

    pred = model(img, known)
    pred = torch.where(known, img, pred)
    hole = ~known
    loss = F.l1_loss(pred[hole], img[hole]) + 0.1 * (pred[:, :, 1:] - pred[:, :, :-1]).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"pred": pred.detach(), "loss": loss.item(),
            "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
