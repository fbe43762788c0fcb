import torch
import torch.nn as nn
import torch.nn.functional as F


def fix_reference_coord(z):
    with torch.no_grad():
        z[:, 0] = 0.0


def main():
    torch.manual_seed(0)
    decoder = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 10))
    data = torch.randn(8, 10)
    z = torch.randn(8, 4, requires_grad=True)
    fix_reference_coord(z)
    opt = torch.optim.Adam([z] + list(decoder.parameters()), lr=1e-2)
    for _ in range(3):
        loss = F.mse_loss(decoder(z), data)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "z": z.detach().clone(), "params": [p.detach().clone() for p in decoder.parameters()]}


if __name__ == "__main__":
    main()
