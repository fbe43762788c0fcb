import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(3, 16), nn.ReLU(True), nn.Linear(16, 2))
    netD = nn.Sequential(nn.Linear(2, 16), nn.ReLU(True), nn.Linear(16, 16), nn.ReLU(True), nn.Linear(16, 1))
    optD = torch.optim.RMSprop(netD.parameters(), lr=5e-4)
    optG = torch.optim.RMSprop(netG.parameters(), lr=5e-4)
    data = torch.randn(96, 2) @ torch.tensor([[1.0, 0.5], [0.0, 0.8]])
    one = torch.tensor(1.0)
    mone = one * -1
    gen_iterations = 0
    log = []
    for i in range(0, 96, 32):
        for p in netD.parameters():
            p.requires_grad = True
        for _ in range(3):
            for p in netD.parameters():
                p.data.clamp_(-0.05, 0.05)
            netD.zero_grad()
            real = data[i:i + 32]
            errD_real = netD(real).mean()
            errD_real.backward(one)
            noise = torch.randn(32, 3)
            with torch.no_grad():
                fake = netG(noise)
            errD_fake = netD(fake).mean()
            errD_fake.backward(mone)
            optD.step()
            errD = errD_real - errD_fake
        for p in netD.parameters():
            p.requires_grad = False
        netG.zero_grad()
        errG = netD(netG(torch.randn(32, 3))).mean()
        errG.backward(one)
        optG.step()
        gen_iterations += 1
        log.append([errD.item(), errG.item()])
    return {"log": log, "gen_iterations": gen_iterations,
            "G": [p.detach().clone() for p in netG.parameters()],
            "D": [p.detach().clone() for p in netD.parameters()]}


if __name__ == "__main__":
    main()
