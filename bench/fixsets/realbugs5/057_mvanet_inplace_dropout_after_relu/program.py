# One training step of (a reduced) MVANet for high-resolution dichotomous segmentation
# (qianyu-dlut/MVANet issue 2: "Relu variables has been modified by an inplace operation").
import torch
import torch.nn.functional as F

from MVANet import MVANet


def main():
    torch.manual_seed(0)
    model = MVANet(emb_dim=8)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-5)

    image = torch.randn(1, 3, 64, 64)
    gt = (torch.rand(1, 1, 64, 64) > 0.5).float()

    pred = model(image)
    loss = F.binary_cross_entropy_with_logits(pred, gt)
    optimizer.zero_grad()
    loss.backward()
    out = {"pred": pred.detach(), "loss": loss.detach()}
    for n, p in model.named_parameters():
        out["grad_" + n] = p.grad.clone()
    optimizer.step()
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    for n, b in model.named_buffers():
        out[n] = b.clone()
    return out


if __name__ == "__main__":
    main()
