import torch
import torch.nn as nn


def positional_encoding(x, n_freqs):
    out = [x]
    freq_x = x.clone()
    for _ in range(n_freqs):
        out.append(torch.sin(freq_x))
        out.append(torch.cos(freq_x))
        freq_x.mul_(2.0)
    return torch.cat(out, dim=-1)


class DeformableField(nn.Module):
    def __init__(self, n_freqs=4, hidden=32):
        super().__init__()
        self.n_freqs = n_freqs
        self.deform = nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, 3))
        in_dim = 3 * (1 + 2 * n_freqs)
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 4))

    def forward(self, pts, t):
        pts = pts + self.deform(torch.cat([pts, t], dim=-1))
        raw = self.mlp(positional_encoding(pts, self.n_freqs))
        sigma = torch.relu(raw[..., :1])
        rgb = torch.sigmoid(raw[..., 1:])
        return sigma, rgb


def main():
    torch.manual_seed(0)
    field = DeformableField()
    opt = torch.optim.Adam(field.parameters(), lr=5e-4)
    pts = torch.rand(64, 3) * 2 - 1
    t = torch.full((64, 1), 0.3)
    target_rgb = torch.rand(64, 3)

    sigma, rgb = field(pts, t)
    weights = 1 - torch.exp(-sigma)
    loss = ((weights * rgb - target_rgb) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.item(),
        "sigma": sigma.detach(),
        "rgb": rgb.detach(),
        "field": {k: v.clone() for k, v in field.state_dict().items()},
    }


if __name__ == "__main__":
    main()
