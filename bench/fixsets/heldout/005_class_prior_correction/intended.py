import torch
import torch.nn as nn
import torch.nn.functional as F


def class_balanced_probs(logits, class_counts):
    # class prior correction; counts come from the dataset statistics in double precision
    prior = class_counts / class_counts.sum()
    probs = F.softmax(logits, dim=-1)
    probs = probs / prior.to(probs.dtype)
    probs = probs / probs.sum(dim=-1, keepdim=True)
    return probs


def main():
    torch.manual_seed(0)
    class_counts = torch.tensor([500.0, 120.0, 30.0, 8.0], dtype=torch.float64)
    model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 4))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(20, 6)
    y = torch.randint(0, 4, (20,))
    probs = class_balanced_probs(model(x), class_counts)
    loss = F.nll_loss(torch.log(probs + 1e-9), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"probs": probs.detach(), "loss": loss.detach(),
            "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
