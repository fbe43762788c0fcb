import torch
import torch.nn as nn


class Seq2Vec(nn.Module):
    def __init__(self, d_in, d_h):
        super().__init__()
        self.cell = nn.GRUCell(d_in, d_h)
        self.readout = nn.Linear(d_h, 1)

    def forward(self, xs):
        T, B, _ = xs.shape
        h = xs.new_zeros(B, self.cell.hidden_size)
        outputs = xs.new_empty(T, B, self.cell.hidden_size)
        for t in range(T):
            h = self.cell(xs[t], h)
            outputs[t] = h
        return self.readout(outputs.mean(dim=0)), outputs


def main():
    torch.manual_seed(0)
    model = Seq2Vec(3, 6)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    xs = torch.randn(5, 4, 3)
    y = torch.randn(4, 1)
    for _ in range(2):
        pred, outputs = model(xs)
        loss = nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.grad.clamp_(-0.5, 0.5)
        opt.step()
    return {"pred": pred.detach(), "outputs": outputs.detach(), "loss": loss.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
