import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model, opt, micro_batches, targets):
    scratch = torch.empty_like(micro_batches[0])
    opt.zero_grad()
    total = 0.0
    for xb, yb in zip(micro_batches, targets):
        scratch.copy_(xb)
        pred = model(scratch.clone())
        total = total + F.mse_loss(pred, yb) / len(micro_batches)
    total.backward()
    opt.step()
    return total.item()


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    xs = list(torch.randn(4, 8, 10).unbind(0))
    ys = list(torch.randn(4, 8, 1).unbind(0))
    losses = [train_step(model, opt, xs, ys) for _ in range(2)]
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
