import torch
import torch.nn as nn
import torch.nn.functional as F


class DetHead(nn.Module):
    def __init__(self, d, n_cls):
        super().__init__()
        self.fc = nn.Linear(d, 1 + n_cls)
        self.n_cls = n_cls

    def forward(self, feats):
        return torch.sigmoid(self.fc(feats))


def compute_loss(head, feats, tobj, tcls):
    out = head(feats)
    loss = F.binary_cross_entropy(out, torch.cat([tobj[:, None], tcls], dim=1))
    obj, cls = out.split([1, head.n_cls], dim=-1)
    with torch.no_grad():
        cls.clamp_(1e-4, 1 - 1e-4)
        score = (obj * cls).max(-1).values.log().mean()
    return loss, score


def main():
    torch.manual_seed(0)
    head = DetHead(10, 5)
    opt = torch.optim.Adam(head.parameters(), lr=1e-3)
    feats = torch.randn(12, 10)
    tobj = (torch.rand(12) < 0.5).float()
    tcls = F.one_hot(torch.randint(0, 5, (12,)), 5).float()
    loss, score = compute_loss(head, feats, tobj, tcls)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.detach(), "score": score, "params": [p.detach().clone() for p in head.parameters()]}


if __name__ == "__main__":
    main()
