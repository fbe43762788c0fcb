import torch
import torch.nn as nn

from misc_models import MLP
from trainers import TrainWithClassifier, ContrastiveLoss


def main():
    torch.manual_seed(0)
    trunk = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
    embedder = MLP([8, 4])
    classifier = MLP([4, 5, 3])
    models = {"trunk": trunk, "embedder": embedder, "classifier": classifier}
    optimizers = {k: torch.optim.SGD(m.parameters(), lr=0.1) for k, m in models.items()}
    loss_funcs = {"metric_loss": ContrastiveLoss(), "classifier_loss": nn.CrossEntropyLoss()}
    loss_weights = {"metric_loss": 1.0, "classifier_loss": 0.5}
    trainer = TrainWithClassifier(models, optimizers, loss_funcs, loss_weights)
    totals = []
    for _ in range(2):
        data = torch.randn(6, 6)
        labels = torch.tensor([0, 0, 1, 1, 2, 2])
        totals.append(trainer.train_step((data, labels)).item())
    out = {"totals": totals, "metric_loss": trainer.losses["metric_loss"].item(),
           "classifier_loss": trainer.losses["classifier_loss"].item()}
    for k, m in models.items():
        for n, p in m.named_parameters():
            out[k + "." + n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
