"""A call reports a hazard of the code it runs in another project file only on a path the call can take: its
own arguments (defaults, keywords forwarded through `**kwargs`, constants) decide the callee's branches. With the
deciding value unknown at the call (a command-line flag, a config the analysis cannot see) it is a warning that
names the condition; with it known and false, nothing. Each program is run under torch with the values the label
says, so every label is measured."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torchrun
from clirun import cli

LAYERS = """
    import torch
    import torch.nn as nn


    class Attention(nn.Module):
        def __init__(self, dim, learned_bias=False, **kwargs):
            super().__init__()
            self.proj = nn.Linear(dim, dim)
            if learned_bias:
                self.learned_bias = nn.Parameter(torch.zeros(dim))
                self.learned_bias.uniform_(-0.1, 0.1)

        def forward(self, x):
            return self.proj(x)


    class Filtered(nn.Module):
        def __init__(self, dim, allowed=(), **kwargs):
            super().__init__()
            kwargs = {k: v for k, v in kwargs.items() if k in allowed}
            self.attn = Attention(dim, **kwargs)

        def forward(self, x):
            return self.attn(x)


    class Wrapper(nn.Module):
        def __init__(self, dim, **kwargs):
            super().__init__()
            self.attn = Attention(dim, **kwargs)

        def forward(self, x):
            return self.attn(x)
"""

# name -> (the script's lines that build the model, the command-line arguments of each run, the expected report:
# "none", "error" or "warning" at the line that builds it, or "callee": none here, though some runs raise)
PROGRAMS = {
    "default": ("model = Attention(16)", [[]], "none"),
    "forwarded_other_kwargs": ("model = Wrapper(16, heads=4)", [[]], "none"),
    "forwarded_flag_false": ("model = Wrapper(16, heads=4, learned_bias=False)", [[]], "none"),
    "forwarded_flag_true": ("model = Wrapper(16, learned_bias=True)", [[]], "error"),
    "forwarded_dict_true": ('options = {"learned_bias": True}\nmodel = Wrapper(16, **options)', [[]], "error"),
    # Options forwarded whole from what the analysis cannot see: the write is the callee's, reported in its own
    # file (a wrapper that passes its options on adds nothing to that).
    "options_from_command_line": (
        "def build(options):\n    return Wrapper(16, **options)\n\n\n"
        "model = build(json.loads(sys.argv[1]) if len(sys.argv) > 1 else {})",
        [[], ['{"learned_bias": true}']], "callee"),
    # The same through a layer of layers.py that filters its options (its `**kwargs` content is not known there).
    "options_filtered_in_the_callee": (
        'model = Filtered(16, allowed=("learned_bias",) if len(sys.argv) > 1 else (), learned_bias=True)',
        [[], ["--bias"]], "callee"),
    "flag_from_command_line": (
        'model = Wrapper(16, learned_bias=len(sys.argv) > 1 and sys.argv[1] == "--bias")', [[], ["--bias"]],
        "warning"),
}

SCRIPT = """
    import json
    import sys

    import torch
    from layers import Attention, Filtered, Wrapper

    {build}
    x = torch.randn(2, 16)
    model(x).sum().backward()
"""


def _outcomes(folder: Path) -> dict[str, list[str]]:
    """How each program ends for each of its argument lists ("ok", "raises-leaf" or "other: ..."), run as
    `python name.py ARGS` (forks of one interpreter that imported torch: `torchrun`)."""
    out: dict[str, list[str]] = {}
    for name, (_, argvs, _) in PROGRAMS.items():
        for argv in argvs:
            ran = torchrun.run(folder, f"{name}.py", *argv)
            result = "ok" if ran.returncode == 0 else (
                "raises-leaf" if "leaf Variable that requires grad" in ran.stderr else "other: " + ran.stderr[-300:])
            out.setdefault(name, []).append(result)
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> tuple[Path, dict, dict]:
    """The programs' folder, how each one runs, and what `check` reports (json) for the folder."""
    folder = tmp_path_factory.mktemp("feasibility")
    (folder / "layers.py").write_text(textwrap.dedent(LAYERS).lstrip("\n"), encoding="utf-8")
    for name, (build, _, _) in PROGRAMS.items():
        script = textwrap.dedent(SCRIPT).lstrip("\n").replace("{build}", build)
        (folder / f"{name}.py").write_text(script, encoding="utf-8")
    proc = cli("check", "--no-cache", "--format", "json", ".", cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    return folder, _outcomes(folder), report


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_call_reports_only_paths_it_can_take(name: str, project: tuple[Path, dict, dict]) -> None:
    folder, outcomes, report = project
    build, argvs, expected = PROGRAMS[name]
    measured = outcomes[name]
    # The label is what torch does: none -> every run ok; error -> every run raises; warning -> it depends.
    wanted_runs = {"none": {"ok"}, "error": {"raises-leaf"}, "warning": {"ok", "raises-leaf"},
                   "callee": {"ok", "raises-leaf"}}[expected]
    assert set(measured) == wanted_runs, f"{name}: measured {measured}, labelled {expected}"
    found = [d for d in report["diagnostics"] if Path(d["path"]).name == f"{name}.py"
             and d["severity"] in ("error", "warning")]
    if expected in ("none", "callee"):
        assert found == [], found
        return
    assert [(d["severity"], d["code"]) for d in found] == [(expected, "FIP102")], found
    message = found[0]["message"]
    if expected == "warning":
        assert message.startswith("this call may run layers.py:11, only when `learned_bias` (layers.py:9) is true")
    else:
        assert message.startswith("this call runs layers.py:11, where")


def test_the_latent_write_stays_an_error_in_its_own_file(project: tuple[Path, dict, dict]) -> None:
    """Analysed on its own, `Attention.__init__` can be called with the flag set: its line raises when it runs."""
    _, _, report = project
    own = [(d["line"], d["severity"]) for d in report["diagnostics"] if Path(d["path"]).name == "layers.py"
           and d["severity"] in ("error", "warning")]
    assert own == [(11, "error")]
