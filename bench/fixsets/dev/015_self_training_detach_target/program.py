import torch
import torch.nn as nn
import torch.nn.functional as F


def self_training_loss(logits, threshold=0.3, ent_weight=0.1):
    probs = logits.softmax(dim=-1)
    target = probs.detach()
    target[target < threshold] = 0.0
    target /= target.sum(dim=-1, keepdim=True)
    ce = -(target * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
    entropy = -(probs * probs.clamp_min(1e-8).log()).sum(dim=-1).mean()
    return ce + ent_weight * entropy, target


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(5, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    unlabeled = torch.randn(10, 5) * 2
    loss, target = self_training_loss(model(unlabeled))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "target": target,
        "grad0": model[0].weight.grad,
        "grad2": model[2].weight.grad,
        "params": [p.detach().clone() for p in model.parameters()],
    }


if __name__ == "__main__":
    main()
