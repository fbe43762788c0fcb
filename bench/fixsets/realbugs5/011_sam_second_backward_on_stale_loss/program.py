"""Active-learning backbone training step with the SAM optimizer (first_step / second_step by hand)."""
import torch
import torch.nn as nn

from sam import SAM


class Backbone(nn.Module):
    """Stand-in for the ResNet-18 backbone: returns (scores, features)."""
    def __init__(self, in_dim, num_classes):
        super(Backbone, self).__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, 16), nn.ReLU())
        self.linear = nn.Linear(16, num_classes)

    def forward(self, x):
        out = self.features(x)
        return self.linear(out), [out]


def train_epoch(models, criterion, optimizers, dataloader):
    models['backbone'].train()
    losses = []
    for inputs, labels in dataloader:
        scores, _ = models['backbone'](inputs)
        target_loss = criterion(scores, labels)
        m_backbone_loss = torch.sum(target_loss) / target_loss.size(0)
        loss = m_backbone_loss

        # -----------------SAM Optimizer -------------------
        criterion(models['backbone'](inputs)[0], labels)
        loss.backward(retain_graph=True)
        optimizers['backbone'].first_step(zero_grad=True)

        criterion(models['backbone'](inputs)[0], labels)
        loss.backward(retain_graph=True)
        optimizers['backbone'].second_step(zero_grad=True)
        losses.append(loss.detach())
    return losses


def main():
    torch.manual_seed(0)
    resnet18 = Backbone(10, 4)
    models = {'backbone': resnet18}
    criterion = nn.CrossEntropyLoss(reduction='none')
    base_optimizer = torch.optim.SGD
    optim_backbone = SAM(models['backbone'].parameters(), base_optimizer, lr=0.1,
                         momentum=0.9, weight_decay=5e-4)
    optimizers = {'backbone': optim_backbone}
    dataloader = [(torch.randn(8, 10), torch.randint(0, 4, (8,))) for _ in range(2)]
    losses = train_epoch(models, criterion, optimizers, dataloader)
    out = {"losses": losses}
    for name, p in resnet18.named_parameters():
        out["param." + name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
