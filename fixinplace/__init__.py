"""fixinplace: find, fix and verify the in-place tensor writes that break PyTorch autograd."""

__version__ = "0.1.0"
