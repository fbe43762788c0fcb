import torch
import torch.nn as nn
import torch.nn.functional as F


def train(model, opt, batches):
    staging = torch.empty(batches[0][0].shape)
    losses = []
    for xb, yb in batches:
        staging.copy_(xb)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(staging), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(inplace=True), nn.Linear(16, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    batches = [(torch.randn(10, 8), torch.randint(0, 3, (10,))) for _ in range(4)]
    losses = train(model, opt, batches)
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
