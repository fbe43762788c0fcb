import torch
import torch.nn as nn


def leaky_trace(u, decay=0.8):
    T, B, D = u.shape
    trace = torch.zeros(T, B, D)
    trace[0] = u[0]
    for t in range(1, T):
        trace[t] = decay * trace[t - 1] + u[t]
    return trace


def main():
    torch.manual_seed(0)
    proj = nn.Linear(6, 4)
    readout = nn.Linear(4, 1)
    opt = torch.optim.SGD(list(proj.parameters()) + list(readout.parameters()), lr=0.05, momentum=0.9)
    x = torch.randn(10, 3, 6)
    y = torch.randn(10, 3, 1)
    for _ in range(3):
        opt.zero_grad()
        trace = leaky_trace(proj(x))
        loss = ((readout(trace) - y) ** 2).mean()
        loss.backward()
        opt.step()
    return {
        "loss": loss.detach(),
        "trace": trace.detach(),
        "params": [p.detach().clone() for p in list(proj.parameters()) + list(readout.parameters())],
    }


if __name__ == "__main__":
    main()
