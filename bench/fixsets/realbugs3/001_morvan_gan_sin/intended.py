import torch
import torch.nn as nn

# Hyper Parameters
BATCH_SIZE = 8
LR_G = 0.0001
LR_D = 0.0001
N_IDEAS = 5
ART_COMPONENTS = 15
PAINT_POINTS = torch.linspace(-1, 1, ART_COMPONENTS).repeat(BATCH_SIZE, 1)


def artist_works():  # painting from the famous artist (real target)
    r = 0.02 * torch.randn(1, ART_COMPONENTS)
    paintings = torch.sin(PAINT_POINTS * 3.141592653589793) + r
    return paintings


def main():
    torch.manual_seed(0)
    G = nn.Sequential(                      # Generator
        nn.Linear(N_IDEAS, 16),
        nn.ReLU(),
        nn.Linear(16, ART_COMPONENTS),
    )
    D = nn.Sequential(                      # Discriminator
        nn.Linear(ART_COMPONENTS, 16),
        nn.ReLU(),
        nn.Linear(16, 1),
        nn.Sigmoid(),
    )
    opt_D = torch.optim.Adam(D.parameters(), lr=LR_D)
    opt_G = torch.optim.Adam(G.parameters(), lr=LR_G)

    d_losses, g_losses = [], []
    for step in range(3):
        artist_paintings = artist_works()
        G_ideas = torch.randn(BATCH_SIZE, N_IDEAS, requires_grad=True)
        G_paintings = G(G_ideas)
        prob_artist1 = D(G_paintings)
        G_loss = torch.mean(torch.log(1. - prob_artist1))
        opt_G.zero_grad()
        G_loss.backward()
        opt_G.step()

        prob_artist0 = D(artist_paintings)
        prob_artist1 = D(G_paintings.detach())
        D_loss = - torch.mean(torch.log(prob_artist0) + torch.log(1. - prob_artist1))
        opt_D.zero_grad()
        D_loss.backward(retain_graph=True)      # reusing computational graph
        opt_D.step()
        d_losses.append(D_loss.item())
        g_losses.append(G_loss.item())

    out = {"d_losses": d_losses, "g_losses": g_losses}
    for n, p in G.named_parameters():
        out["G." + n] = p.detach().clone()
    for n, p in D.named_parameters():
        out["D." + n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
