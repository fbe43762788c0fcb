import numpy as np
import torch


class ToTensor:
    """torchvision 0.2 ToTensor for ndarrays: torch.from_numpy (no copy) for float images."""

    def __call__(self, pic):
        img = torch.from_numpy(pic.transpose((2, 0, 1)))
        return img


class Normalize:
    """Normalize after pytorch/vision#699: out of place unless inplace=True."""

    def __init__(self, mean, std, inplace=False):
        self.mean = mean
        self.std = std
        self.inplace = inplace

    def __call__(self, tensor):
        if not self.inplace:
            tensor = tensor.clone()
        for t, m, s in zip(tensor, self.mean, self.std):
            t.sub_(m).div_(s)
        return tensor


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, img):
        for t in self.transforms:
            img = t(img)
        return img
