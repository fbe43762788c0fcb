import torch
import torch.nn as nn


def gradient_penalty(D, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = D(interp)
    grads = torch.autograd.grad(outputs=d_interp, inputs=interp, grad_outputs=torch.ones_like(d_interp),
                                create_graph=True, retain_graph=True)[0]
    return ((grads.norm(2, dim=1) - 1) ** 2).mean()


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 32), nn.ReLU(inplace=True), nn.Linear(32, 3))
    D = nn.Sequential(nn.Linear(3, 32), nn.LeakyReLU(0.2, inplace=True), nn.Linear(32, 1))
    optG = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.0, 0.9))
    optD = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.0, 0.9))
    real_all = torch.randn(64, 3) * torch.tensor([1.0, 0.5, 2.0])
    log = []
    for it in range(2):
        for p in D.parameters():
            p.requires_grad_(True)
        for k in range(2):
            real = real_all[(it * 2 + k) * 16:(it * 2 + k + 1) * 16]
            fake = G(torch.randn(16, 4)).detach()
            d_loss = D(fake).mean() - D(real).mean() + 10.0 * gradient_penalty(D, real, fake)
            optD.zero_grad()
            d_loss.backward()
            optD.step()
        for p in D.parameters():
            p.requires_grad_(False)
        g_loss = -D(G(torch.randn(16, 4))).mean()
        optG.zero_grad()
        g_loss.backward()
        optG.step()
        log.append([d_loss.item(), g_loss.item()])
    return {"log": log, "G": [p.detach().clone() for p in G.parameters()],
            "D": [p.detach().clone() for p in D.parameters()]}


if __name__ == "__main__":
    main()
