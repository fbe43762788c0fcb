import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 3))
    netD = nn.Sequential(nn.Linear(3, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
    optD = torch.optim.Adam(netD.parameters(), lr=1e-2, betas=(0.5, 0.999), fused=True)
    optG = torch.optim.Adam(netG.parameters(), lr=1e-2, betas=(0.5, 0.999), fused=True)
    real = torch.randn(128, 3) + torch.tensor([1.0, -1.0, 0.5])

    hist = []
    for i, real_b in enumerate(real.split(32)):
        noise = torch.randn(real_b.size(0), 5)
        fake = netG(noise)
        out_fake = netD(fake)

        # (1) update D: maximize log(D(x)) + log(1 - D(G(z)))
        errD = F.binary_cross_entropy_with_logits(netD(real_b), torch.ones(real_b.size(0), 1)) + \
            F.binary_cross_entropy_with_logits(netD(fake.detach()), torch.zeros(real_b.size(0), 1))
        optD.zero_grad()
        errD.backward()

        # (2) update G: maximize log(D(G(z)))
        errG = F.binary_cross_entropy_with_logits(out_fake, torch.ones(real_b.size(0), 1))
        optG.zero_grad()
        errG.backward(inputs=list(netG.parameters()))
        optD.step()
        optG.step()
        hist.append((errD.item(), errG.item()))

    return {"hist": hist,
            "G": [p.detach().clone() for p in netG.parameters()],
            "G_grad": [p.grad.clone() for p in netG.parameters()],
            "D": [p.detach().clone() for p in netD.parameters()]}


if __name__ == "__main__":
    main()
