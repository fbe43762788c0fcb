import torch
import torch.nn as nn


class SparseAutoencoder(nn.Module):
    def __init__(self, d, k):
        super().__init__()
        self.encoder = nn.Linear(d, k)
        self.dictionary = nn.Parameter(torch.randn(k, d) * 0.3)

    def forward(self, x):
        codes = self.encoder(x)
        recon = codes @ self.dictionary
        l1 = codes.abs_().sum(dim=1).mean()
        return recon, l1


def main():
    torch.manual_seed(0)
    sae = SparseAutoencoder(10, 6)
    opt = torch.optim.Adam(sae.parameters(), lr=1e-2)
    x = torch.randn(32, 10)
    recon, l1 = sae(x)
    loss = ((recon - x) ** 2).mean() + 1e-2 * l1
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "recon": recon.detach(),
        "l1": l1.detach(),
        "loss": loss.detach(),
        "dictionary.grad": sae.dictionary.grad,
        "encoder.weight.grad": sae.encoder.weight.grad,
        "dictionary": sae.dictionary.detach().clone(),
    }


if __name__ == "__main__":
    main()
