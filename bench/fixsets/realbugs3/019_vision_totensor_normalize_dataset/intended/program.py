import numpy as np
import torch
import torch.nn as nn

from transforms import Compose, ToTensor, Normalize


class InMemoryDataset(torch.utils.data.Dataset):
    """Own data loader with the whole data set residing in RAM."""

    def __init__(self, images, labels, transform):
        self.images = images  # float32 ndarray (N, H, W, C)
        self.labels = labels
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.transform(self.images[idx]), self.labels[idx]


def main():
    torch.manual_seed(0)
    rng = np.random.RandomState(0)
    images = rng.rand(8, 4, 4, 1).astype(np.float32)
    labels = torch.from_numpy(rng.randint(0, 2, size=8))
    transform = Compose([ToTensor(), Normalize((0.5,), (0.25,))])
    dataset = InMemoryDataset(images, labels, transform)
    loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=False)

    model = nn.Sequential(nn.Flatten(), nn.Linear(16, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    losses = []
    for epoch in range(2):
        for data, target in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(data), target)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return {"losses": losses, "images": torch.from_numpy(images.copy()),
            "weight": model[1].weight.detach().clone(), "bias": model[1].bias.detach().clone()}


if __name__ == "__main__":
    main()
