import torch
import torch.nn as nn
import torch.nn.functional as F


def neg_cosine(p, z):
    target = z.detach()
    target = target / target.norm(dim=1, keepdim=True)
    p = F.normalize(p, dim=1)
    return -(p * target).sum(dim=1).mean()


class SimSiam(nn.Module):
    def __init__(self, d_in=10, dim=16, pred_dim=8):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(d_in, 32), nn.BatchNorm1d(32), nn.ReLU(inplace=True), nn.Linear(32, dim)
        )
        self.predictor = nn.Sequential(
            nn.Linear(dim, pred_dim), nn.BatchNorm1d(pred_dim), nn.ReLU(inplace=True), nn.Linear(pred_dim, dim)
        )

    def forward(self, x1, x2):
        z1, z2 = self.encoder(x1), self.encoder(x2)
        p1, p2 = self.predictor(z1), self.predictor(z2)
        return p1, p2, z1, z2


def main():
    torch.manual_seed(0)
    model = SimSiam()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    x = torch.randn(12, 10)
    x1 = x + 0.2 * torch.randn_like(x)
    x2 = x + 0.2 * torch.randn_like(x)

    p1, p2, z1, z2 = model(x1, x2)
    loss = 0.5 * (neg_cosine(p1, z2) + neg_cosine(p2, z1))
    opt.zero_grad()
    loss.backward()
    opt.step()

    return {
        "loss": loss.item(),
        "z1": z1.detach(),
        "z2": z2.detach(),
        "state": {k: v.clone() for k, v in model.state_dict().items()},
    }


if __name__ == "__main__":
    main()
