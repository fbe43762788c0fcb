import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS = 0, 1


class Decoder(nn.Module):
    def __init__(self, vocab=12, emb=8, hidden=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=PAD)
        self.cell = nn.GRUCell(emb, hidden)
        self.out = nn.Linear(hidden, vocab)

    def step(self, tok, h):
        h = self.cell(self.emb(tok), h)
        logp = F.log_softmax(self.out(h), dim=-1)
        logp = logp.clone()
        logp[:, PAD] = -1e4
        return logp, h


def main():
    torch.manual_seed(0)
    dec = Decoder()
    opt = torch.optim.Adam(dec.parameters(), lr=1e-3)
    tgt = torch.randint(2, 12, (3, 5))
    h = torch.zeros(3, 16)
    tok = torch.full((3,), BOS)
    nll = 0.0
    for t in range(tgt.shape[1]):
        logp, h = dec.step(tok, h)
        nll = nll + F.nll_loss(logp, tgt[:, t])
        tok = tgt[:, t]  # teacher forcing
    loss = nll / tgt.shape[1]
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "last_logp": logp.detach(),
            "params": {n: p.detach().clone() for n, p in dec.named_parameters()}}


if __name__ == "__main__":
    main()
