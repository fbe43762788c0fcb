import torch
import torch.nn as nn
import torch.nn.functional as F


class TiedGRULM(nn.Module):
    def __init__(self, vocab=15, dim=8):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim, max_norm=1.0)
        self.cell = nn.GRUCell(dim, dim)
        self.bias = nn.Parameter(torch.zeros(vocab))

    def forward(self, tokens):
        B, T = tokens.shape
        h = tokens.new_zeros(B, self.cell.hidden_size, dtype=torch.float)
        logits = []
        for t in range(T):
            h = self.cell(self.emb(tokens[:, t]), h)
            logits.append(h @ self.emb.weight.t() + self.bias)
        return torch.stack(logits, dim=1)


def main():
    torch.manual_seed(0)
    lm = TiedGRULM()
    opt = torch.optim.SGD(lm.parameters(), lr=0.5)
    seq = torch.randint(0, 15, (3, 7))
    logits = lm(seq[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 15), seq[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return {"loss": loss.item(), "logits": logits.detach(),
            "params": {n: p.detach().clone() for n, p in lm.named_parameters()}}


if __name__ == "__main__":
    main()
