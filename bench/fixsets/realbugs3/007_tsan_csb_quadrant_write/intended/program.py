import torch
import torch.nn as nn

from tsan import TSAN


def main():
    torch.manual_seed(0)
    model = TSAN(n_colors=3, n_feats=4, n_denselayer=2)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    loss_fn = nn.L1Loss()
    lr = torch.rand(2, 3, 4, 4)
    hr = torch.rand(2, 3, 4, 4)
    sr = model(lr)
    loss = loss_fn(sr, hr)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"sr": sr.detach(), "loss": loss.item()}
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
