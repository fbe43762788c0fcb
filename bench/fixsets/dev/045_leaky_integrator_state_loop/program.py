import torch
import torch.nn as nn


class LeakyIntegrator(nn.Module):
    def __init__(self, d_in, d_h, decay=0.9):
        super().__init__()
        self.W_in = nn.Linear(d_in, d_h)
        self.W_rec = nn.Parameter(torch.randn(d_h, d_h) * 0.2)
        self.decay = decay

    def forward(self, xs):
        state = torch.zeros(xs.shape[1], self.W_rec.shape[0])
        outs = []
        for x in xs:
            drive = torch.sigmoid(self.W_in(x) + state @ self.W_rec)
            state.mul_(self.decay).add_(drive)
            outs.append(drive)
        return torch.stack(outs), state


def main():
    torch.manual_seed(0)
    model = LeakyIntegrator(3, 5)
    xs = torch.randn(6, 2, 3)
    outs, state = model(xs)
    loss = outs.mean() + (state ** 2).mean()
    loss.backward()
    return {"outs": outs.detach(), "state": state.detach(), "loss": loss.detach(),
            "W_rec.grad": model.W_rec.grad, "W_in.weight.grad": model.W_in.weight.grad}


if __name__ == "__main__":
    main()
