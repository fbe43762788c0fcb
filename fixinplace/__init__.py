"""fixinplace: find, fix and verify the in-place tensor writes that break PyTorch autograd."""

import importlib

__version__ = "0.1.0"


def __getattr__(name: str):
    """`fixinplace.trace` (the run-time tracer, a callable package) is imported on first use: torch stays unimported."""
    if name == "trace":
        return importlib.import_module("fixinplace.trace")
    raise AttributeError(f"module 'fixinplace' has no attribute {name!r}")
