import torch
import torch.nn as nn
import torch.nn.functional as F


class AnnealedSoftmaxHead(nn.Module):
    def __init__(self, d, n, t0=2.0, decay=0.8, t_min=0.5):
        super().__init__()
        self.fc = nn.Linear(d, n)
        self.decay = decay
        self.t_min = t_min
        self.register_buffer("temperature", torch.tensor(t0))

    def forward(self, x):
        logits = self.fc(x) / self.temperature
        if self.training:
            self.temperature = (self.temperature * self.decay).clamp(min=self.t_min)
        return F.log_softmax(logits, dim=-1)


def main():
    torch.manual_seed(0)
    head = AnnealedSoftmaxHead(5, 3)
    opt = torch.optim.SGD(head.parameters(), lr=0.5)
    x = torch.randn(10, 5)
    y = torch.randint(0, 3, (10,))
    losses, temps = [], []
    for _ in range(3):
        loss = F.nll_loss(head(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        temps.append(head.temperature.item())
    return {"losses": losses, "temps": temps, "temperature": head.temperature.clone(),
            "fc.weight": head.fc.weight.detach().clone(), "fc.weight.grad": head.fc.weight.grad}


if __name__ == "__main__":
    main()
