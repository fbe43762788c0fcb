"""FIP108: in-place writes to the views `unbind`, `split` and `chunk` return, each program labelled by running it
under torch (it raises "... This view is the output of a function that returns multiple views", or it runs), and
checked against exactly what the analysis reports at warning level or above."""

from __future__ import annotations

import ast
import textwrap

import pytest

from fixinplace.analysis import analyze_module
from labels import reported, runs_or_raises

MULTI_VIEW_ERROR = "returns multiple views"

# name -> (what running it does: "raises" the multi-view error or runs "ok", expected (line, code, severity), source)
CASES: dict[str, tuple[str, set, str]] = {
    "chunk_output_scaled": ("raises", {(5, "FIP108", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        y = w * 2
        first, second = y.chunk(2)
        first.mul_(0.5)
        torch.cat([first, second]).sum().backward()
    """),
    "unbind_element_by_index": ("raises", {(4, "FIP108", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        rows = torch.unbind(w.exp())
        rows[1].clamp_(max=1.0)
    """),
    "split_output_row_written": ("raises", {(4, "FIP108", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        head = (w + 1).split(2)[0]
        head[0] = 0.0
    """),
    "transpose_attribute_of_output": ("raises", {(4, "FIP108", "error")}, """
        import torch
        w = torch.randn(2, 3, 4, requires_grad=True)
        part = (w * 2).unbind(0)[0]
        part.T.add_(1)
    """),
    "write_under_no_grad": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        first, second = (w * 2).chunk(2)
        with torch.no_grad():
            first.mul_(0.5)
    """),
    "clone_and_detach_of_output": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        first = (w * 2).chunk(2)[0].clone()
        first.mul_(0.5)
        second = (w * 2).chunk(2)[1].detach()
        second.mul_(0.5)
    """),
    "tensor_split_outputs_may_be_written": ("ok", set(), """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        parts = (w * 2).tensor_split(2)
        parts[0].mul_(0.5)
    """),
    "nothing_requires_grad": ("ok", set(), """
        import torch
        y = torch.randn(4, 3)
        a, b = y.chunk(2)
        a.mul_(2)
    """),
    "leaf_base_is_the_leaf_rule": ("raises", {(4, "FIP102", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        first = w.chunk(2)[0]
        first.mul_(2)
    """),
    "transposed_then_contiguous_copies": ("ok", {(4, "FIP108", "warning")}, """
        import torch
        w = torch.randn(2, 3, 4, requires_grad=True)
        a = (w * 2).unbind(0)[0].t().contiguous()
        a.mul_(2)
    """),
    "reshape_of_a_strided_chunk_copies": ("ok", {(4, "FIP108", "warning")}, """
        import torch
        w = torch.randn(2, 3, 4, requires_grad=True)
        b = (w * 2).chunk(2, dim=2)[0].reshape(-1)
        b.mul_(2)
    """),
    "reshape_of_a_contiguous_split_is_a_view": ("raises", {(4, "FIP108", "warning")}, """
        import torch
        w = torch.randn(2, 3, 4, requires_grad=True)
        e = (w * 2).split(1)[0].reshape(3, 4)
        e.mul_(2)
    """),
    "rows_of_a_tensor_that_requires_grad": ("raises", {(5, "FIP108", "error")}, """
        import torch
        w = torch.randn(4, 3, requires_grad=True)
        rows = w.exp()
        for row in rows:
            row.clamp_(max=1.0)
    """),
    "a_layer_output_unpacked": ("raises", {(6, "FIP108", "error")}, """
        import torch
        from torch import nn
        layer = nn.Linear(3, 3)
        out = layer(torch.randn(2, 3))
        first, second = out
        first.mul_(2)
    """),
    "rows_of_data_without_grad": ("ok", set(), """
        import torch
        data = torch.randn(4, 3)
        for row in data:
            row.mul_(2)
    """),
    "module_tuple_unpacked_is_not_an_unbind": ("ok", set(), """
        import torch
        from torch import nn
        attn = nn.MultiheadAttention(8, 2, batch_first=True)
        x = torch.randn(2, 5, 8, requires_grad=True)
        out, weights = attn(x, x, x)
        out.mul_(2)
        out.sum().backward()
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
    if outcome != "ok" and name != "leaf_base_is_the_leaf_rule":
        assert MULTI_VIEW_ERROR in outcome


def test_a_leaf_view_quotes_the_error_pytorch_raises():
    """A leaf's view that `chunk` returned is FIP102's, but PyTorch checks the view's kind first: the message quotes
    the multi-view error, which `test_truth_under_torch` sees raised."""
    source = _source("leaf_base_is_the_leaf_rule")
    message = next(d.message for d in analyze_module(ast.parse(source), source, "case.py") if d.code == "FIP102")
    assert MULTI_VIEW_ERROR in message and "leaf Variable" not in message
