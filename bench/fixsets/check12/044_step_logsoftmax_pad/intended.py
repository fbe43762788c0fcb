import torch
import torch.nn as nn
import torch.nn.functional as F


def step(model, opt, x, y, pad_id=0):
    logp = F.log_softmax(model(x), dim=-1)
    loss = F.nll_loss(logp, y)
    masked = logp.detach().clone()
    masked[:, pad_id] = float("-inf")  # never predict the pad token
    pred = masked.argmax(-1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return loss.item(), pred


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 7))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(10, 6)
    y = torch.randint(1, 7, (10,))
    loss, pred = step(model, opt, x, y)
    return {"loss": loss, "pred": pred, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
