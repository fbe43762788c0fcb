"""A Python number that multiplies or divides a tensor saves nothing for backward, so writing the tensor afterwards
is safe. The analysis knows a value is a Python number from where it comes: a literal default (`scale=0.5`), a
size (`x.shape[2]`), `min`/`max` with a size, a name `range` took, an item of a `Tuple[int, int]` argument. Each program is run under torch (forward with
tensors that require grad, then backward): the safe ones run, the hazardous one raises, and `check` agrees."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

HEADER = """
    import torch
    import torch.nn as nn
"""

# name -> (program, whether it raises "modified by an inplace operation")
PROGRAMS = {
    "literal_default": ("""
        class Scale(nn.Module):
            def __init__(self, dim, scale=0.5):
                super().__init__()
                self.proj = nn.Linear(dim, dim)
                self.scale = scale

            def forward(self, x):
                h = self.proj(x)
                y = h * self.scale
                h.add_(1)
                return y
    """, False),
    "shape_element": ("""
        def blend(a: torch.Tensor, b: torch.Tensor, n: int) -> torch.Tensor:
            m = a.shape[1]
            for y in range(n):
                b[:, y] = b[:, y] * (y / m)
            return b
    """, False),
    "min_with_shape": ("""
        def blend(a: torch.Tensor, b: torch.Tensor, extent) -> torch.Tensor:
            extent = min(a.shape[1], b.shape[1], extent)
            for y in range(extent):
                b[:, y] = a[:, -extent + y] * (1 - y / extent) + b[:, y] * (y / extent)
            return b
    """, False),
    "range_bound": ("""
        def blend(a: torch.Tensor, b: torch.Tensor, extent) -> torch.Tensor:
            for y in range(extent):
                b[:, y] = a[:, y] * (1 - y / extent) + b[:, y] * (y / extent)
            return b
    """, False),
    "tuple_of_ints_annotation": ("""
        from typing import Tuple


        def normalise(coords_input: torch.Tensor, image_size: Tuple[int, int]) -> torch.Tensor:
            coords = coords_input.clone()
            coords[:, 0] = coords[:, 0] / image_size[1]
            coords[:, 1] = coords[:, 1] / image_size[0]
            return coords
    """, False),
    # The same shape with a tensor that requires grad as the factor: `mul` saves `b[:, y]`, and the next
    # iteration's write to `b` breaks the backward.
    "tensor_factor": ("""
        def blend(a: torch.Tensor, b: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
            for y in range(3):
                b[:, y] = a[:, y] + b[:, y] * w
            return b
    """, True),
}

DRIVERS = {
    "literal_default": "out = Scale(4)(torch.randn(2, 4))",
    "shape_element": "out = blend(torch.randn(2, 4), torch.randn(2, 4, requires_grad=True) * 1, 3)",
    "min_with_shape": "out = blend(torch.randn(2, 4, requires_grad=True) * 1, torch.randn(2, 4, requires_grad=True) * 1, 3)",
    "range_bound": "out = blend(torch.randn(2, 4, requires_grad=True) * 1, torch.randn(2, 4, requires_grad=True) * 1, 3)",
    "tuple_of_ints_annotation": "out = normalise(torch.randn(3, 2, requires_grad=True), (4, 8))",
    "tensor_factor": "out = blend(torch.randn(2, 4), torch.randn(2, 4, requires_grad=True) * 1, "
                     "torch.randn(2, requires_grad=True))",
}


def _program(name: str) -> str:
    body, _ = PROGRAMS[name]
    return textwrap.dedent(HEADER).lstrip("\n") + "\n\n" + textwrap.dedent(body).strip("\n") + "\n"


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and whether each one raises when run forward and backward (one child for all)."""
    folder = tmp_path_factory.mktemp("scalars")
    for name in PROGRAMS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
    runs = {name: (f"{name}.py", driver + "\nout.sum().backward()") for name, driver in DRIVERS.items()}
    return folder, raises_inplace_error(folder, runs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_scalar_operand(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] is PROGRAMS[name][1], f"{name}: the label is not what torch does"
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    found = [(d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]
             if d["severity"] in ("error", "warning")]
    if raises[name]:
        assert found and found[0][0] == "FIP101", found
    else:
        assert found == [], found
