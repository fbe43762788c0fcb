import torch
import torch.nn as nn
import torch.nn.functional as F


def soft_target_loss(logits, target_dist):
    probs = F.softmax(logits, dim=1)
    loss = -(target_dist * torch.log(probs + 1e-8)).sum(1).mean()
    return loss, probs


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 20), nn.Tanh(), nn.Linear(20, 5))
    opt = torch.optim.SGD(model.parameters(), lr=0.3)
    x = torch.randn(25, 6)
    hard = torch.randint(0, 5, (25,))
    target_dist = F.one_hot(hard, 5).float() * 0.9 + 0.02

    log = []
    for epoch in range(3):
        loss, probs = soft_target_loss(model(x), target_dist)
        pct = probs.data
        pct.mul_(100)
        log.append({"loss": loss.item(), "mean_conf_pct": pct.max(1).values.mean().item()})
        opt.zero_grad()
        loss.backward()
        opt.step()

    return {"log": log, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
