"""SlowLiDAR (WUSTL-CSPL/SlowLiDAR, issue #2): the reporter suspected the PIXOR Decoder's
`x[:, i, :, :] = x[:, i, :, :] * self.target_std_dev[i] + self.target_mean[i]`; the
maintainers could not reproduce and the reporter traced it to a torch version. The
slices are written on the regression head's conv output, which no backward formula
saved (the read is only scaled by Python floats), so the attack's backward is fine."""
import torch

from model import PIXOR


def main():
    torch.manual_seed(0)
    net = PIXOR(use_bn=True, decode=True)
    net.eval()
    for p in net.parameters():
        p.requires_grad_(False)
    bev = torch.rand(1, 4, 16, 16)
    delta = torch.zeros_like(bev, requires_grad=True)
    eps, step = 0.05, 0.01
    objectives = []
    for it in range(2):
        pred = net(bev + delta)
        cls, reg, corners = pred[:, :1], pred[:, 1:7], pred[:, 7:]
        # slow-down objective: raise the number of candidate boxes the NMS has to handle
        objective = cls.sum() + 0.01 * corners.abs().sum()
        objective.backward()
        with torch.no_grad():
            delta += step * delta.grad.sign()
            delta.clamp_(-eps, eps)
            delta.grad.zero_()
        objectives.append(objective.detach())
    return {"objectives": objectives, "pred": pred.detach(), "delta": delta.detach().clone()}


if __name__ == "__main__":
    main()
