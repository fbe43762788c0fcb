import torch
import torch.nn as nn
import torch.nn.functional as F


class TiedLM(nn.Module):
    def __init__(self, vocab, dim):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, max_norm=1.0)
        self.rnn = nn.GRU(dim, dim, batch_first=True)

    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids))
        return h @ self.emb.weight.t()


def evaluate(model, ids):
    model.eval()
    with torch.no_grad():
        logits = model(ids[:, :-1])
        nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
    model.train()
    return nll.item()


def main():
    torch.manual_seed(0)
    model = TiedLM(16, 8)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    batches = [torch.randint(0, 16, (4, 6)) for _ in range(3)]
    losses = []
    for ids in batches:
        opt.zero_grad()
        logits = model(ids[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), ids[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        losses.append(loss.item())
    val = evaluate(model, batches[0])
    return {"losses": losses, "val": val, "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
