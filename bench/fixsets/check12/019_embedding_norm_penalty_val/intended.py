import torch
import torch.nn as nn
import torch.nn.functional as F


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim, n_cls):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, max_norm=0.8)
        self.fc = nn.Linear(dim, n_cls)

    def forward(self, ids):
        return self.fc(self.emb(ids).mean(1))


def main():
    torch.manual_seed(0)
    model = BagClassifier(25, 6, 3)
    opt = torch.optim.SGD(model.parameters(), lr=0.2)
    train_ids = torch.randint(0, 25, (8, 4))
    train_y = torch.randint(0, 3, (8,))
    val_ids = torch.randint(0, 25, (5, 4))
    val_y = torch.randint(0, 3, (5,))
    log = []
    for _ in range(2):
        opt.zero_grad()
        loss = F.cross_entropy(model(train_ids), train_y) + 1e-2 * model.emb.weight.clone().norm()
        with torch.no_grad():
            val_acc = (model(val_ids).argmax(-1) == val_y).float().mean().item()
        loss.backward()
        opt.step()
        log.append((loss.item(), val_acc))
    return {"log": log, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
