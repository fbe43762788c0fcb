import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, d, k):
        self.enc = nn.Linear(d, k)
        self.dec = nn.Linear(k, d)
        self.opt = torch.optim.Adam(list(self.enc.parameters()) + list(self.dec.parameters()), lr=1e-2)

    def step_pretrain(self, x):
        s = torch.tanh(self.enc(x))
        recon = self.dec(s)
        loss = F.mse_loss(recon, x)
        s[:, :2] = 0.0  # ablate two units to see how much they matter
        ablated = F.mse_loss(self.dec(s), x).item()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), ablated

    def step_finetune(self, x):
        loss = F.mse_loss(self.dec(self.enc(x)), x)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        return loss.item(), 0.0


def main():
    torch.manual_seed(0)
    trainer = Trainer(6, 4)
    x = torch.randn(12, 6)
    log = []
    for phase in ["pretrain", "pretrain", "finetune"]:
        log.append(getattr(trainer, "step_" + phase)(x))
    params = list(trainer.enc.parameters()) + list(trainer.dec.parameters())
    return {"log": log, "params": [p.detach().clone() for p in params]}


if __name__ == "__main__":
    main()
