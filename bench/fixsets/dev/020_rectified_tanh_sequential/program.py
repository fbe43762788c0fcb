import torch
import torch.nn as nn


def make_mlp(sizes):
    layers = []
    for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):
        layers += [nn.Linear(d_in, d_out), nn.Tanh(), nn.ReLU(inplace=True)]
    layers.append(nn.Linear(sizes[-2], sizes[-1]))
    return nn.Sequential(*layers)


def main():
    torch.manual_seed(0)
    model = make_mlp([4, 16, 16, 2])
    opt = torch.optim.RMSprop(model.parameters(), lr=1e-2)
    x = torch.randn(24, 4)
    y = (x[:, :2] * x[:, 2:]).detach()
    losses = []
    for epoch in range(3):
        pred = model(x)
        loss = nn.functional.mse_loss(pred, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    return {"losses": losses, "pred": pred.detach(),
            "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()]}


if __name__ == "__main__":
    main()
