import torch
import torch.nn as nn
import torch.nn.functional as F


class SiameseEncoder(nn.Module):
    def __init__(self, d_in, d_out, batch):
        super().__init__()
        self.register_buffer("buf", torch.zeros(batch, d_in))
        self.fc = nn.Sequential(nn.Linear(d_in, 24), nn.GELU(), nn.Linear(24, d_out))

    def forward(self, x):
        self.buf[:] = x
        self.buf.clamp_(-3.0, 3.0)
        return self.fc(self.buf.clone())


def contrastive_loss(a, b, same, margin=1.0):
    d = (a - b).pow(2).sum(1).add(1e-9).sqrt()
    return (same * d.pow(2) + (1 - same) * F.relu(margin - d).pow(2)).mean()


def main():
    torch.manual_seed(0)
    enc = SiameseEncoder(6, 4, batch=8)
    opt = torch.optim.AdamW(enc.parameters(), lr=1e-3, weight_decay=0.01)
    x1 = torch.randn(8, 6) * 2
    x2 = torch.randn(8, 6) * 2
    same = (torch.rand(8) < 0.5).float()
    for _ in range(2):
        opt.zero_grad()
        loss = contrastive_loss(enc(x1), enc(x2), same)
        loss.backward()
        opt.step()
    return {"loss": loss.detach(), "buf": enc.buf.clone(), "params": [p.detach().clone() for p in enc.parameters()]}


if __name__ == "__main__":
    main()
