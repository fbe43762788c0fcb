import torch
import torch.nn as nn

from multiresunet import MultiResUnet


def main():
    torch.manual_seed(0)
    model = MultiResUnet(channels=3, filters=4, nclasses=1)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.BCELoss()
    image = torch.randn(2, 3, 8, 8)
    mask = (torch.rand(2, 1, 8, 8) > 0.5).float()
    pred = model(image)
    loss = criterion(pred, mask)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    out = {"pred": pred.detach(), "loss": loss.item()}
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
