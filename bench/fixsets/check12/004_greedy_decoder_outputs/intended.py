import torch
import torch.nn as nn
import torch.nn.functional as F


class GreedyDecoder(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, hidden, max_len, bos=0):
        batch = hidden.shape[0]
        outputs = torch.zeros(max_len, batch, hidden.shape[1])
        logits = []
        tok = torch.full((batch,), bos, dtype=torch.long)
        for t in range(max_len):
            hidden = self.cell(self.embed(tok), hidden)
            outputs[t] = hidden
            step_logits = self.out(hidden)
            logits.append(step_logits)
            tok = step_logits.argmax(-1)
        return torch.stack(logits), outputs


def main():
    torch.manual_seed(0)
    vocab, hidden, max_len = 11, 16, 5
    dec = GreedyDecoder(vocab, hidden)
    opt = torch.optim.Adam(dec.parameters(), lr=1e-3)
    enc_state = torch.randn(4, hidden)
    targets = torch.randint(0, vocab, (max_len, 4))
    opt.zero_grad()
    logits, outputs = dec(enc_state, max_len)
    loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
    loss.backward()
    opt.step()
    return {
        "loss": loss.detach(),
        "outputs": outputs.detach(),
        "params": [p.detach().clone() for p in dec.parameters()],
    }


if __name__ == "__main__":
    main()
