"""A warning names the facts it waits for (issue 25: "each remaining warning names the one fact that is missing"):
a save the file cannot show happens names grad mode where the code runs and the inputs of unknown provenance whose
requires-grad decides it. Each claim is measured: the program raises exactly when those facts hold."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

PROGRAM = '''import torch


def scaled(targets):
    gain = torch.ones(3)
    t = targets * gain
    gain[0] = 2.0
    return t


def normalised(x):
    y = x.exp()
    y.div_(y.sum())
    return y
'''

# name -> (the call, then a backward where it can run; whether it raises)
RUNS = {
    "scaled, targets requires grad": ("out = scaled(torch.randn(3, requires_grad=True))", True),
    "scaled, targets does not": ("out = scaled(torch.randn(3))", False),
    "normalised, grad mode on, x requires grad": ("out = normalised(torch.randn(3, requires_grad=True))", True),
    "normalised, grad mode off": ("with torch.no_grad():\n    out = normalised(torch.randn(3, requires_grad=True))",
                                  False),
    "normalised, x does not require grad": ("out = normalised(torch.randn(3))", False),
}

# line -> what the warning must say it waits for
EXPECTED = {
    7: "(mul saves its input `gain` for backward when grad mode is on and `targets` requires grad, which this file "
       "does not show)",
    13: "(exp saves its output for backward when grad mode is on and `x` requires grad, which this file does not "
        "show)",
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("facts")
    (path / "program.py").write_text(PROGRAM, encoding="utf-8")
    return path


def test_the_labels_are_what_torch_does(folder: Path) -> None:
    backward = "\nif out.requires_grad:\n    out.sum().backward()\n"
    raises = raises_inplace_error(folder, {name: ("program.py", call + backward) for name, (call, _) in RUNS.items()})
    assert raises == {name: expected for name, (_, expected) in RUNS.items()}


def test_each_warning_names_the_facts_it_waits_for(folder: Path) -> None:
    proc = cli("check", "--no-cache", "--format", "json", "program.py", cwd=folder)
    found = {d["line"]: (d["code"], d["severity"], d["message"]) for d in json.loads(proc.stdout)["diagnostics"]}
    assert sorted(found) == sorted(EXPECTED)
    for line, text in EXPECTED.items():
        code, severity, message = found[line]
        assert (code, severity) == ("FIP101", "warning") and text in message, message
