"""FIP109: in-place writes, with grad mode on, to views made under `torch.no_grad()` of tensors that require grad.
Each program is labelled by running it under torch (it raises "A view was created in no_grad mode and is being
modified inplace with grad mode enabled", or it runs) and checked against exactly what the analysis reports at
warning level or above."""

from __future__ import annotations

import ast
import textwrap

import pytest

from fixinplace.analysis import analyze_module
from labels import reported, runs_or_raises

NO_GRAD_VIEW_ERROR = "created in no_grad mode"

# name -> (what running it does: "raises" or "ok", expected (line, code, severity), source)
CASES: dict[str, tuple[str, set, str]] = {
    "slice_made_in_block_written_after": ("raises", {(6, "FIP109", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        h = w * 2
        with torch.no_grad():
            top = h[:2]
        top.mul_(0.5)
    """),
    "view_of_the_view_written_after": ("raises", {(6, "FIP109", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        h = w * 2
        with torch.no_grad():
            flat = h.view(12)
        flat[0:3].add_(1)
    """),
    "made_in_a_no_grad_function_written_by_its_caller": ("raises", {(10, "FIP109", "error")}, """
        import torch


        @torch.no_grad()
        def first_rows(t):
            return t[:2]

        w = torch.randn(4, 3, requires_grad=True)
        rows = first_rows(w * 2)
        rows.mul_(0.5)
    """),
    "written_inside_the_block": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        h = w * 2
        with torch.no_grad():
            top = h[:2]
            top.mul_(0.5)
    """),
    "detached_in_the_block": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        h = w * 2
        with torch.no_grad():
            top = h[:2].detach()
        top.mul_(0.5)
    """),
    "base_made_in_the_block": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        with torch.no_grad():
            h = w * 2
            top = h[:2]
        top.mul_(0.5)
    """),
    "nothing_requires_grad": ("ok", set(), """
        import torch
        h = torch.randn(4, 3)
        with torch.no_grad():
            top = h[:2]
        top.mul_(0.5)
    """),
    "view_made_with_grad_on": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        h = w * 2
        top = h[:2]
        top.mul_(0.5)
        h.sum().backward()
    """),
    "a_leaf_view_is_the_leaf_rule": ("raises", {(5, "FIP102", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        with torch.no_grad():
            top = w[:2]
        top.mul_(0.5)
    """),
}


def _source(name: str) -> str:
    return textwrap.dedent(CASES[name][2]).lstrip("\n")


@pytest.mark.parametrize("name", sorted(CASES))
def test_reported_exactly(name: str) -> None:
    assert reported(_source(name)) == CASES[name][1]


@pytest.mark.parametrize("name", sorted(CASES))
def test_truth_under_torch(name: str) -> None:
    pytest.importorskip("torch")
    outcome = runs_or_raises(_source(name), name)
    assert (outcome == "ok") == (CASES[name][0] == "ok"), outcome
    if outcome != "ok":
        assert NO_GRAD_VIEW_ERROR in outcome


def test_a_leaf_view_quotes_the_error_pytorch_raises():
    """A view of a leaf made in no-grad mode is FIP102's, but PyTorch raises the no-grad view error for it."""
    source = _source("a_leaf_view_is_the_leaf_rule")
    message = next(d.message for d in analyze_module(ast.parse(source), source, "case.py") if d.code == "FIP102")
    assert NO_GRAD_VIEW_ERROR in message and "leaf Variable" not in message
