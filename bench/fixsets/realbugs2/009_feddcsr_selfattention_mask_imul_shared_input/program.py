"""FedDCSR VGSAN (orion-orion/FedDCSR, issue #3): SelfAttention.forward() masks its input
with `seqs *= ~timeline_mask.unsqueeze(-1)`; the Encoder feeds the same seqs_emb to
encoder_mu and then encoder_logvar, so the second call rewrites the tensor that the
first call's attention LayerNorm saved."""
from types import SimpleNamespace

import torch
import torch.nn.functional as F

from vgsan_model import VGSAN


def kl_loss(mu, logvar):
    return torch.mean(-0.5 * torch.sum(1 + logvar - mu ** 2 - logvar.exp(), dim=-1))


def main():
    torch.manual_seed(0)
    args = SimpleNamespace(gpu=0, cuda=False, max_seq_len=6, lr=1e-3)
    num_items = 10
    model = VGSAN(num_items, args)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    adj = torch.rand(num_items + 1, num_items + 1)
    adj = adj / adj.sum(1, keepdim=True)
    seqs = torch.randint(0, num_items, (3, args.max_seq_len))
    seqs[0, :2] = num_items  # left padding
    targets = torch.randint(0, num_items, (3, args.max_seq_len))
    losses = []
    model.train()
    for step in range(2):
        optimizer.zero_grad()
        model.graph_convolution(adj)
        result, mu, logvar = model(seqs)
        loss = F.cross_entropy(result.reshape(-1, num_items + 1), targets.reshape(-1)) \
            + 0.1 * kl_loss(mu, logvar)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
