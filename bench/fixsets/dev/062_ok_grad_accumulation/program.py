import torch
import torch.nn as nn


def build():
    model = nn.Sequential(nn.Linear(4, 12), nn.SiLU(), nn.Linear(12, 1))
    for m in model:
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight)
            nn.init.zeros_(m.bias)
    return model


def main():
    torch.manual_seed(0)
    model = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(24, 4)
    y = x.sum(dim=1, keepdim=True).sin()
    accum = 3
    sq_err_sum = torch.zeros(1)
    for epoch in range(2):
        opt.zero_grad()
        for xb, yb in zip(x.chunk(accum), y.chunk(accum)):
            pred = model(xb)
            loss = nn.functional.mse_loss(pred, yb)
            loss.backward()
            sq_err_sum += (pred.detach() - yb).pow(2).sum()
        for p in model.parameters():
            p.grad.div_(accum)
        nn.utils.clip_grad_value_(model.parameters(), 0.5)
        opt.step()
        for g in opt.param_groups:
            g["lr"] *= 0.5
    return {"sq_err_sum": sq_err_sum, "params": [p.detach().clone() for p in model.parameters()],
            "grads": [p.grad for p in model.parameters()], "lr": opt.param_groups[0]["lr"]}


if __name__ == "__main__":
    main()
