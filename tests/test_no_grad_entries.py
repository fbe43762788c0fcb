"""Grad mode flows from the entry points that set it into the functions they call, also when the call graph by name
is a cycle (a function named like another object's method: `decode` and `tokenizer.decode`). Each program is run
under torch: its entry `decode(model, x)`, then a backward of the result where it requires grad; the programs whose
entry turns grad mode off run, the one without does not, and `check` agrees."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

DECODER = """
    import torch
    import torch.nn as nn


    class Tokenizer:
        def decode(self, ids):
            return [int(i) for i in ids]


    class Greedy:
        def update(self, tokens, logits):
            probs = logits.softmax(dim=-1)
            chosen = probs.argmax(dim=-1, keepdim=True).float()
            probs.mul_(0.5)
            return torch.cat([tokens, chosen], dim=-1), probs


    class Task:
        def __init__(self, model):
            self.model = model
            self.decoder = Greedy()
            self.tokenizer = Tokenizer()

        def _loop(self, x, tokens):
            for _ in range(2):
                logits = self.model(x)
                tokens, probs = self.decoder.update(tokens, logits)
            return tokens, probs

        RUN_DECORATOR
        def run(self, x):
            tokens = torch.zeros(x.shape[0], 1)
            tokens, probs = self._loop(x, tokens)
            texts = [self.tokenizer.decode(t) for t in tokens]
            return probs


    DECODE
"""

# name -> (how `decode` and `Task.run` are written, whether running it raises "modified by an inplace operation")
PROGRAMS = {
    "decorated_entries": ("@torch.no_grad()", "@torch.no_grad()\ndef decode(model, x):\n    return Task(model).run(x)",
                          False),
    "with_block_entry": ("", "def decode(model, x):\n    with torch.no_grad():\n        return Task(model).run(x)",
                         False),
    "grad_mode_left_to_the_caller": ("", "def decode(model, x):\n    return Task(model).run(x)", True),
}


def _program(name: str) -> str:
    run_decorator, decode, _ = PROGRAMS[name]
    text = textwrap.dedent(DECODER).lstrip("\n")
    return text.replace("    RUN_DECORATOR\n", f"    {run_decorator}\n" if run_decorator else "").replace("DECODE", decode)


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and whether each one raises when run (one child for all)."""
    folder = tmp_path_factory.mktemp("entries")
    for name in PROGRAMS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
    run = ("result = decode(torch.nn.Linear(4, 3), torch.randn(2, 4))\n"
           "if result.requires_grad:\n    result.sum().backward()\n")
    return folder, raises_inplace_error(folder, {name: (f"{name}.py", run) for name in PROGRAMS})


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_grad_mode_of_the_entry_point(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] is PROGRAMS[name][2], f"{name}: the label is not what torch does"
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    found = [(d["code"], d["line"]) for d in json.loads(proc.stdout)["diagnostics"]
             if d["severity"] in ("error", "warning")]
    if raises[name]:
        assert found == [("FIP101", 14)], found
    else:
        assert found == [], found
