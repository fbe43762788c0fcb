import torch
import torch.nn as nn

from network import IncUNet


def main():
    torch.manual_seed(0)
    model = IncUNet(in_shape=(1, 32, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.001)
    criterion = nn.SmoothL1Loss()
    ecg = torch.randn(2, 1, 32)
    distance_map = torch.rand(2, 1, 32)
    losses = []
    for epoch in range(2):
        model.train()
        optimizer.zero_grad()
        pred = model(ecg)
        loss = criterion(pred, distance_map)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    out = {"losses": losses, "pred": pred.detach()}
    for n, p in model.named_parameters():
        out[n] = p.detach().clone()
    return out


if __name__ == "__main__":
    main()
