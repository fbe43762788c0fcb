import torch
import torch.nn as nn


def energy_penalty(z):
    return (z ** 2).sum(dim=1).mean()


class DropRowsNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(6, 5)
        self.head = nn.Linear(5, 1)

    def forward(self, x, drop_idx):
        z = self.enc(x)
        reg = energy_penalty(z)
        z = z.clone()
        z[drop_idx] = 0.0
        return self.head(z), reg


def main():
    torch.manual_seed(0)
    net = DropRowsNet()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    x = torch.randn(8, 6)
    y = torch.randn(8, 1)
    drop_idx = torch.tensor([1, 4, 6])
    pred, reg = net(x, drop_idx)
    loss = nn.functional.mse_loss(pred, y) + 0.1 * reg
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"pred": pred.detach(), "loss": loss.detach(), "enc.weight.grad": net.enc.weight.grad,
            "enc.weight": net.enc.weight.detach().clone(), "head.weight": net.head.weight.detach().clone()}


if __name__ == "__main__":
    main()
