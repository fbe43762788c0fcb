import torch
import torch.nn as nn
import torch.nn.functional as F


class LeakyIntegrator(nn.Module):
    def __init__(self, d_in=3, n=12, d_out=2, beta=0.9):
        super().__init__()
        self.inp = nn.Linear(d_in, n, bias=False)
        self.out = nn.Linear(n, d_out)
        self.beta = beta

    def forward(self, x_seq):
        B = x_seq.shape[1]
        v = torch.zeros(B, self.out.in_features)
        ys = []
        for x_t in x_seq:
            v = v * self.beta + self.inp(x_t)
            ys.append(torch.tanh(self.out(v)))
        return torch.stack(ys)


def main():
    torch.manual_seed(0)
    model = LeakyIntegrator()
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    x = torch.randn(8, 4, 3)
    target = torch.cumsum(x[..., :2], dim=0) * 0.2
    ys = model(x)
    loss = F.mse_loss(ys, target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"ys": ys.detach(), "loss": loss.item(),
            "params": {n: p.detach().clone() for n, p in model.named_parameters()}}


if __name__ == "__main__":
    main()
