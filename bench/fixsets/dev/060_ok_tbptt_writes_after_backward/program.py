import torch
import torch.nn as nn


class CharRNN(nn.Module):
    def __init__(self, vocab, d_h):
        super().__init__()
        self.emb = nn.Embedding(vocab, d_h)
        self.rnn = nn.RNN(d_h, d_h)
        self.head = nn.Linear(d_h, vocab)

    def forward(self, tokens, h):
        out, h = self.rnn(self.emb(tokens), h)
        return self.head(out), h


def main():
    torch.manual_seed(0)
    vocab = 9
    model = CharRNN(vocab, 8)
    opt = torch.optim.Adagrad(model.parameters(), lr=0.1)
    stream = torch.randint(0, vocab, (13, 2))
    h = torch.zeros(1, 2, 8)
    total = torch.zeros(())
    chunk_losses = []
    for start in range(0, 12, 4):
        inp, tgt = stream[start:start + 4], stream[start + 1:start + 5]
        logits, h = model(inp, h)
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tgt.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        h = h.detach()
        with torch.no_grad():
            logits.clamp_(-5, 5)
        total += loss.detach()
        chunk_losses.append(loss.item())
    return {"total": total, "chunk_losses": chunk_losses, "h": h, "last_logits": logits,
            "params": [p.detach().clone() for p in model.parameters()]}


if __name__ == "__main__":
    main()
