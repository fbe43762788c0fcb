"""FrEIA AllInOneBlock (vislearn/FrEIA, PR #164): the coupling scales the subnet output with
`a *= 0.1` (and, for GIN blocks, centres with `sub_jac -= mean`). The PR replaced both for a
PyTorch 2.0 error; with the usual fully connected subnet (ending in nn.Linear, whose output
no backward formula saves) the in-place writes are safe under torch 2.13."""
import torch
import torch.nn as nn

from all_in_one_block import AllInOneBlock


def subnet_fc(c_in, c_out):
    return nn.Sequential(nn.Linear(c_in, 16), nn.ReLU(), nn.Linear(16, c_out))


def main():
    torch.manual_seed(0)
    blocks = nn.ModuleList([AllInOneBlock([(4,)], subnet_constructor=subnet_fc, gin_block=(k % 2 == 1))
                            for k in range(4)])
    optimizer = torch.optim.Adam(blocks.parameters(), lr=1e-3)
    losses = []
    for step in range(3):
        x = torch.randn(16, 4) * torch.tensor([1.0, 2.0, 0.5, 1.5]) + 1.0
        optimizer.zero_grad()
        z, log_jac_det = (x,), 0.
        for block in blocks:
            z, ljd = block(z)
            log_jac_det = log_jac_det + ljd
        loss = 0.5 * torch.sum(z[0] ** 2, 1) - log_jac_det
        loss = loss.mean() / 4
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses, "z": z[0].detach()}
    for name, p in blocks.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
