import torch
import torch.nn as nn
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    G = nn.Sequential(nn.Linear(4, 16), nn.BatchNorm1d(16), nn.ReLU(True), nn.Linear(16, 3), nn.Tanh())
    D = nn.Sequential(nn.Linear(3, 16), nn.LeakyReLU(0.2, inplace=True), nn.Linear(16, 1))
    g_opt = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    d_opt = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    data = torch.tanh(torch.randn(32, 3) + 0.5)
    for i in range(2):
        real = data[i * 16:(i + 1) * 16]
        label = torch.empty(16, 1)
        label.fill_(1.0)
        label.sub_(0.1)  # one-sided label smoothing
        fake = G(torch.randn(16, 4))
        d_opt.zero_grad()
        err_real = F.binary_cross_entropy_with_logits(D(real), label)
        err_real.backward()
        label.fill_(0.0)
        err_fake = F.binary_cross_entropy_with_logits(D(fake.detach()), label)
        err_fake.backward()
        d_opt.step()

        g_opt.zero_grad()
        label.fill_(1.0)
        err_g = F.binary_cross_entropy_with_logits(D(fake), label)
        err_g.backward()
        g_opt.step()
    return {"err_d": (err_real + err_fake).detach(), "err_g": err_g.detach(),
            "G": [t.clone().float() for t in G.state_dict().values()],
            "D": [p.detach().clone() for p in D.parameters()]}


if __name__ == "__main__":
    main()
