import torch
import torch.nn as nn
import torch.nn.functional as F


class FiLMBlock(nn.Module):
    def __init__(self, c, n_cond):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1)
        self.bn = nn.BatchNorm2d(c, affine=False)
        self.film = nn.Linear(n_cond, 2 * c)

    def forward(self, x, cond):
        gamma, beta = self.film(cond)[:, :, None, None].tensor_split(2, dim=1)
        h = self.bn(self.conv(x))
        h.mul_(1 + gamma).add_(beta)
        return F.relu(h)


def main():
    torch.manual_seed(0)
    block = FiLMBlock(3, 4)
    head = nn.Linear(3, 2)
    opt = torch.optim.SGD(list(block.parameters()) + list(head.parameters()), lr=0.05)
    mean = torch.tensor([0.5, 0.5, 0.5])[:, None, None]
    std = torch.tensor([0.25, 0.25, 0.25])[:, None, None]
    for _ in range(2):
        img = torch.rand(4, 3, 6, 6)
        img.sub_(mean).div_(std)
        cond = torch.randn(4, 4)
        y = torch.randint(0, 2, (4,))
        loss = F.cross_entropy(head(block(img, cond).mean((2, 3))), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {
        "loss": loss.detach(),
        "params": [p.detach().clone() for p in list(block.parameters()) + list(head.parameters())],
        "running_mean": block.bn.running_mean.clone(),
    }


if __name__ == "__main__":
    main()
