"""fepegar/unet (PR #37): with residual=True, EncodingBlock/DecodingBlock.forward() end with
`x += connection`, where x is conv2's output after its ReLU, which ReluBackward saved."""
import torch
import torch.nn.functional as F

from unet import UNet2D

config = dict(in_channels=1, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=4,
              normalization='batch', upsampling_type='linear', padding=True, residual=True)


def main():
    torch.manual_seed(0)
    model = UNet2D(**config)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    images = torch.rand(2, 1, 16, 16)
    labels = (torch.rand(2, 16, 16) > 0.5).long()
    losses = []
    for epoch in range(2):
        optimizer.zero_grad()
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        loss.backward()
        optimizer.step()
        losses.append(loss.detach())
    out = {"losses": losses, "logits": logits.detach()}
    for name, p in model.named_parameters():
        out[name] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
