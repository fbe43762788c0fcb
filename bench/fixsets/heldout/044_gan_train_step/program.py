import torch
import torch.nn as nn

criterion = nn.BCEWithLogitsLoss()


def build_models(z_dim=6, x_dim=4):
    G = nn.Sequential(nn.Linear(z_dim, 24), nn.BatchNorm1d(24), nn.ReLU(True), nn.Linear(24, x_dim))
    D = nn.Sequential(nn.Linear(x_dim, 24), nn.LeakyReLU(0.2, True), nn.Linear(24, 1))
    return G, D


def train_step(G, D, opt_G, opt_D, real, z):
    fake = G(z)
    d_real = D(real)
    d_fake = D(fake)
    ones, zeros = torch.ones_like(d_real), torch.zeros_like(d_fake)

    loss_D = criterion(d_real, ones) + criterion(d_fake, zeros)
    opt_D.zero_grad()
    loss_D.backward(retain_graph=True)
    opt_D.step()

    loss_G = criterion(d_fake, ones)
    opt_G.zero_grad()
    loss_G.backward()
    opt_G.step()
    return loss_D.item(), loss_G.item()


def main():
    torch.manual_seed(0)
    G, D = build_models()
    opt_G = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
    opt_D = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
    real_data = torch.randn(64, 4) * 0.3 + 1.0
    log = []
    for i in range(2):
        log.append(train_step(G, D, opt_G, opt_D, real_data[i * 32:(i + 1) * 32], torch.randn(32, 6)))
    return {
        "log": log,
        "G_grads": [p.grad for p in G.parameters()],
        "G": {k: v.clone() for k, v in G.state_dict().items()},
        "D": {k: v.clone() for k, v in D.state_dict().items()},
    }


if __name__ == "__main__":
    main()
