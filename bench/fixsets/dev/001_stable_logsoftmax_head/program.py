import torch
import torch.nn as nn
import torch.nn.functional as F


class StableHead(nn.Module):
    """Classifier head that returns log-probabilities (hand-rolled for 'stability')."""

    def __init__(self, d_in, n_classes, hidden=32):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.GELU(), nn.Linear(hidden, n_classes))

    def forward(self, x):
        logits = self.body(x)
        logits -= logits.amax(dim=1, keepdim=True)
        logits -= logits.logsumexp(dim=1, keepdim=True)
        return logits


def main():
    torch.manual_seed(0)
    model = StableHead(10, 5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(16, 10)
    y = torch.randint(0, 5, (16,))
    losses = []
    for _ in range(2):
        logp = model(x)
        loss = F.nll_loss(logp, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.detach())
    out = {"logp": logp.detach(), "losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
        out[name + ".grad"] = p.grad
    return out


if __name__ == "__main__":
    main()
