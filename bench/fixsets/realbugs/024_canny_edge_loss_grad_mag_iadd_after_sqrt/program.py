"""CannyEdgePytorch (DCurro) used as a differentiable edge loss: a small image-to-image network
is trained so that the Canny gradient magnitude of its output matches the target's. The Canny
net accumulates the per-channel magnitudes with `grad_mag += torch.sqrt(...)`, overwriting the
output that the first sqrt saved for its backward."""
import torch
import torch.nn as nn
import torch.nn.functional as F

from net_canny import Net


def main():
    torch.manual_seed(0)
    canny = Net(threshold=3.0, use_cuda=False)
    for p in canny.parameters():
        p.requires_grad_(False)
    generator = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 3, padding=1))
    optimizer = torch.optim.Adam(generator.parameters(), lr=1e-3)
    losses = []
    for step in range(2):
        inp = torch.rand(1, 3, 16, 16)
        target = torch.rand(1, 3, 16, 16)
        out = generator(inp)
        _, grad_mag_out, _, _, _, _ = canny(out)
        with torch.no_grad():
            _, grad_mag_tgt, _, _, _, _ = canny(target)
        loss = F.l1_loss(out, target) + 0.1 * F.l1_loss(grad_mag_out, grad_mag_tgt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    result = {'losses': losses, 'out': out.detach()}
    for name, p in generator.named_parameters():
        result[name] = p.detach().clone()
    return result


if __name__ == "__main__":
    main()
