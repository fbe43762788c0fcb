import torch
import torch.nn as nn


class AttentionPool(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.score = nn.Linear(d, 1)

    def forward(self, seq, lengths):
        B, T, _ = seq.shape
        valid = torch.arange(T)[None, :] < lengths[:, None]
        w = torch.exp(self.score(seq).squeeze(-1))
        w[~valid] = 0.0
        w = w / w.sum(dim=1, keepdim=True)
        return (w[:, :, None] * seq).sum(dim=1), w


def main():
    torch.manual_seed(0)
    pool = AttentionPool(5)
    clf = nn.Linear(5, 2)
    seq = torch.randn(3, 4, 5)
    lengths = torch.tensor([4, 2, 3])
    labels = torch.tensor([1, 0, 1])
    pooled, w = pool(seq, lengths)
    loss = nn.functional.cross_entropy(clf(pooled), labels)
    loss.backward()
    return {"weights": w.detach(), "loss": loss.detach(),
            "score.weight.grad": pool.score.weight.grad, "score.bias.grad": pool.score.bias.grad,
            "clf.weight.grad": clf.weight.grad}


if __name__ == "__main__":
    main()
