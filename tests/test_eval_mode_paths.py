"""Code that only eval mode runs is not trained: a forward's `if self.training:` arms and a method every call through
`self` in its class hierarchy (a base class in another file included) makes in eval mode or with grad mode off.
A saved-tensor hazard there breaks no training step, so it is not reported when the backward is only assumed (a
forward whose caller the file does not show); one that the code's own backward in eval mode reaches still is, and
a leaf written in eval mode with grad mode on still raises at the write. Each program is run under torch: the
label is whether training it (`train()`, forward, backward) raises, and `check` agrees."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import LEAF_ERROR, raises_inplace_error, reported

HEAD = """
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)
        self.bias = nn.Parameter(torch.zeros(4))

"""

# name -> (the forward and its helpers, the lines check reports as (line, code, severity), whether training raises)
FORWARDS = {
    "eval_arm_of_if_else": ("""
    def forward(self, seq):
        if self.training:
            return self.emb(seq).sum()
        else:
            return self.greedy(seq)

    def greedy(self, seq):
        out = self.emb(seq)
        seq[:, 0] = 3
        return out.sum()
""", set(), False),
    "after_a_training_return": ("""
    def forward(self, seq):
        if self.training:
            return self.emb(seq).sum()
        out = self.emb(seq)
        seq[:, 0] = 3
        return out.sum()
""", set(), False),
    "not_training_arm": ("""
    def forward(self, seq):
        out = self.emb(seq)
        if not self.training:
            seq[:, 0] = 3
        return out.sum()
""", set(), False),
    "training_arm_still_reported": ("""
    def forward(self, seq):
        out = self.emb(seq)
        if self.training:
            seq[:, 0] = 3
        return out.sum()
""", {(14, "FIP101", "error")}, True),
    "other_test_decides_nothing": ("""
    def forward(self, seq):
        out = self.emb(seq)
        if self.training and seq.shape[0] > 1:
            pass
        else:
            seq[:, 0] = 3
        return out.sum()
""", {(16, "FIP101", "error")}, True),
}

TRAIN = "model = Decoder().train()\nmodel(torch.tensor([[1, 2]])).backward()\n"


def _program(name: str) -> str:
    return HEAD.lstrip("\n") + textwrap.dedent(FORWARDS[name][0]).strip("\n").replace("\n", "\n    ").join(
        ["    ", "\n"])


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict[str, bool]:
    """Whether training each program raises (one child for all)."""
    folder = tmp_path_factory.mktemp("eval_paths")
    for name in FORWARDS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
    return raises_inplace_error(folder, {name: (f"{name}.py", TRAIN) for name in FORWARDS})


@pytest.mark.parametrize("name", sorted(FORWARDS))
def test_eval_only_code_is_not_trained(name: str, trained: dict[str, bool]) -> None:
    _, expected, raises = FORWARDS[name]
    assert trained[name] is raises, f"{name}: the label is not what torch does"
    assert reported(_program(name)) == expected


def test_a_backward_the_code_runs_in_eval_mode_is_reported(tmp_path: Path) -> None:
    step = "\n\ndef evaluate():\n    model = Decoder().eval()\n    model(torch.tensor([[1, 2]])).backward()\n"
    source = _program("eval_arm_of_if_else") + step
    (tmp_path / "script.py").write_text(source, encoding="utf-8")
    assert raises_inplace_error(tmp_path, {"run": ("script.py", "evaluate()")})["run"] is True
    assert (19, "FIP101", "error") in reported(source)


def test_a_leaf_written_in_eval_mode_still_raises_at_the_write(tmp_path: Path) -> None:
    source = HEAD.lstrip("\n") + textwrap.indent(textwrap.dedent("""
        def forward(self, seq):
            if not self.training:
                self.bias.add_(1)
            return self.emb(seq).sum() + self.bias.sum()
    """).strip("\n"), "    ") + "\n"
    (tmp_path / "leaf.py").write_text(source, encoding="utf-8")
    run = "Decoder().eval()(torch.tensor([[1, 2]]))\n"
    assert raises_inplace_error(tmp_path, {"eval": ("leaf.py", run)}, LEAF_ERROR)["eval"] is True
    assert any(code == "FIP102" for _, code, _ in reported(source))


BASE = """
import torch
import torch.nn as nn


class BaseDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 4)

    def forward(self, seq):
        if self.training:
            return self.forward_train(seq)
        return self.forward_test(seq)

    @torch.no_grad()
    def predict(self, seq):
        return self.beam(seq)

    def forward_train(self, seq):
        return self.emb(seq).sum()
"""

SUBCLASS = """
import torch

from base import BaseDecoder


class GreedyDecoder(BaseDecoder):
    def forward_test(self, seq):
        out = self.emb(seq)
        seq[:, 0] = 3
        return out.sum()

    def beam(self, seq):
        out = self.emb(seq)
        seq[:, 1] = 4
        return out.sum()

    def rerank(self, seq):
        out = self.emb(seq)
        seq[:, 0] = 5
        return out.sum()
"""


def test_a_base_class_in_another_file_calls_the_override_in_eval_mode(tmp_path: Path) -> None:
    """`forward_test` (the eval arm of the base's forward) and `beam` (under the base's `@torch.no_grad()`) are
    never trained; `rerank`, which nothing calls, still gets its warning."""
    (tmp_path / "base.py").write_text(BASE.lstrip("\n"), encoding="utf-8")
    (tmp_path / "greedy.py").write_text(SUBCLASS.lstrip("\n"), encoding="utf-8")
    run = ("from greedy import GreedyDecoder\nmodel = GreedyDecoder().train()\n"
           "model(torch.tensor([[1, 2]])).backward()\nmodel.eval()\nmodel.predict(torch.tensor([[1, 2]]))\n")
    assert raises_inplace_error(tmp_path, {"train": ("base.py", run)})["train"] is False
    proc = cli("check", "--no-cache", "--format", "json", "greedy.py", cwd=tmp_path)
    found = [(d["line"], d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]]
    assert found == [(19, "FIP101", "warning")], found
