import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallConvNet(nn.Module):
    def __init__(self, n_cls=3):
        super().__init__()
        self.conv = nn.Conv2d(3, 6, 3, padding=1)
        self.head = nn.Linear(6, n_cls)

    def forward(self, x):
        h = F.relu(self.conv(x))
        return self.head(h.mean(dim=(2, 3)))


def main():
    torch.manual_seed(0)
    model = SmallConvNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    dataset = [torch.rand(4, 3, 8, 8).numpy() for _ in range(3)]
    labels = [torch.randint(0, 3, (4,)) for _ in range(3)]
    batch = torch.empty(4, 3, 8, 8)
    staging = batch.numpy()
    staging[...] = dataset[0]
    losses = []
    for i in range(len(dataset)):
        opt.zero_grad()
        loss = F.cross_entropy(model(batch), labels[i])
        if i + 1 < len(dataset):
            staging[...] = dataset[i + 1]  # overlap loading the next batch with backward
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
