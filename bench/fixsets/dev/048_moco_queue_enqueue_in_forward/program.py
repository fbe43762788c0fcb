import torch
import torch.nn as nn
import torch.nn.functional as F


class QueueContrast(nn.Module):
    def __init__(self, dim, queue_size, tau=0.2):
        super().__init__()
        self.tau = tau
        self.register_buffer("queue", F.normalize(torch.randn(queue_size, dim), dim=1))
        self.register_buffer("ptr", torch.zeros((), dtype=torch.long))

    def forward(self, q, k):
        q = F.normalize(q, dim=1)
        k = F.normalize(k, dim=1).detach()
        l_pos = (q * k).sum(dim=1, keepdim=True)
        l_neg = torch.einsum("nc,kc->nk", q, self.queue)
        logits = torch.cat([l_pos, l_neg], dim=1) / self.tau
        # enqueue the new keys
        n = k.shape[0]
        p = int(self.ptr)
        self.queue[p:p + n] = k
        self.ptr.fill_((p + n) % self.queue.shape[0])
        return F.cross_entropy(logits, torch.zeros(n, dtype=torch.long))


def main():
    torch.manual_seed(0)
    enc_q = nn.Linear(6, 4)
    enc_k = nn.Linear(6, 4)
    enc_k.load_state_dict(enc_q.state_dict())
    head = QueueContrast(4, 16)
    opt = torch.optim.SGD(enc_q.parameters(), lr=0.1)
    x = torch.randn(8, 6)
    losses = []
    for i in range(2):
        xq, xk = x + 0.1 * torch.randn_like(x), x + 0.1 * torch.randn_like(x)
        loss = head(enc_q(xq), enc_k(xk))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return {"losses": losses, "queue": head.queue.clone(), "ptr": head.ptr.clone(),
            "enc_q": [p.detach().clone() for p in enc_q.parameters()],
            "enc_q.grad": [p.grad for p in enc_q.parameters()]}


if __name__ == "__main__":
    main()
