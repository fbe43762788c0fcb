"""Call summaries per calling context (`fixinplace.analysis.summaries`): a call whose context was seen before is
answered from its summary instead of being run again, and a summary is never used where running the call would
give something else: when a global it read was rebound, when a dict it read was changed, when the call changed its
own argument. Nor where the call reads a default list it changes, or a dict imported from another project file that was
changed. Each program's label is measured by running it under torch; `check` must agree, and the diagnostics of
the bundled fixtures are the same with summaries on and off."""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
import torchrun

from fixinplace.analysis import summaries
from fixinplace.analysis.frame import Frame
from fixinplace.analysis.interpreter import Interpreter
from fixinplace.analysis.values import ScalarValue, SeqValue

ROOT = Path(__file__).resolve().parent.parent

ACT = textwrap.dedent("""

    def act(x):
        y = torch.sigmoid(x)
        if inplace_wanted():
            y.mul_(2)
        return y
""")

# name -> (definitions, the scenario run at top level, whether it raises "modified by an inplace operation")
PROGRAMS = {
    "global_kept": (
        "INPLACE = False\n\n\ndef inplace_wanted():\n    return INPLACE\n" + ACT,
        "a = torch.randn(3, requires_grad=True)\nact(a).sum().backward()\nact(a).sum().backward()\n",
        False),
    "global_rebound": (
        "INPLACE = False\n\n\ndef inplace_wanted():\n    return INPLACE\n" + ACT,
        "a = torch.randn(3, requires_grad=True)\nact(a).sum().backward()\nINPLACE = True\nact(a).sum().backward()\n",
        True),
    "dict_changed": (
        'OPTIONS = {"inplace": False}\n\n\ndef inplace_wanted():\n    return OPTIONS["inplace"]\n' + ACT,
        'a = torch.randn(3, requires_grad=True)\nact(a).sum().backward()\nOPTIONS["inplace"] = True\n'
        "act(a).sum().backward()\n",
        True),
    "argument_changed": (
        'def enable(options):\n    options["inplace"] = True\n\n\n'
        "def act(x, options):\n    y = torch.sigmoid(x)\n    if options[\"inplace\"]:\n        y.mul_(2)\n"
        "    return y\n",
        'a = torch.randn(3, requires_grad=True)\nfirst = {"inplace": False}\nenable(first)\n'
        'second = {"inplace": False}\nenable(second)\nact(a, second).sum().backward()\n',
        True),
    "default_list_changed": (
        "def calls_so_far(seen=[]):\n    seen.append(1)\n    return len(seen)\n\n\n"
        "def inplace_wanted():\n    return calls_so_far() > 1\n" + ACT,
        "a = torch.randn(3, requires_grad=True)\nact(a).sum().backward()\nact(a).sum().backward()\n",
        True),
    "imported_dict_changed": (
        "from settings import OPTIONS\n\n\ndef inplace_wanted():\n    return OPTIONS[\"inplace\"]\n" + ACT,
        'a = torch.randn(3, requires_grad=True)\nact(a).sum().backward()\nact(a).sum().backward()\n'
        'OPTIONS["inplace"] = True\nact(a).sum().backward()\n',
        True),
}

# The project module `imported_dict_changed` imports.
SETTINGS = 'OPTIONS = {"inplace": False}\n'


def _program(name: str) -> str:
    definitions, scenario, _ = PROGRAMS[name]
    body = textwrap.indent(scenario, "    ")
    return f"import torch\n\n{textwrap.dedent(definitions).strip()}\n\n\nif __name__ == \"__main__\":\n{body}"


def _write_line(text: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if "mul_(2)" in line)


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and whether each one, run as a script, raises the in-place error."""
    folder = tmp_path_factory.mktemp("summaries")
    (folder / "settings.py").write_text(SETTINGS, encoding="utf-8")
    raises = {}
    for name in PROGRAMS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
        ran = torchrun.run(folder, f"{name}.py")
        raises[name] = "modified by an inplace operation" in ran.stderr
        assert ran.returncode == 0 or raises[name], ran.stderr
    return folder, raises


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_a_summary_is_used_only_where_the_call_would_do_the_same(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] is PROGRAMS[name][2], f"{name}: the label is not what torch does"
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    found = [(d["code"], d["line"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]]
    if raises[name]:
        assert found == [("FIP101", _write_line(_program(name)), "error")], found
    else:
        assert found == [], found


PADDING = """
def get_padding(kernel_size, stride=1):
    if isinstance(kernel_size, (tuple, list)):
        return [get_padding(k, stride) for k in kernel_size]
    return ((stride - 1) + (kernel_size - 1)) // 2


a = get_padding(3)
b = get_padding(3)
c = get_padding((3, 5))
d = get_padding((3, 5))
e = get_padding(3, stride=2)
f = get_padding(3)
"""


def _run(source: str) -> tuple[Interpreter, dict]:
    """The interpreter after running a module's top level, and the module scope."""
    interp = Interpreter(ast.parse(source), source, "padding.py")
    scope: dict = {}
    interp.exec_block(interp.tree.body, Frame(env=scope, globals=scope))
    return interp, scope


def _shown(value) -> object:
    """A value as plain Python: constants, and lists of them."""
    if isinstance(value, SeqValue):
        return [_shown(v) for v in value.items]
    return value.constant if isinstance(value, ScalarValue) else type(value).__name__


def test_each_calling_context_runs_once() -> None:
    """Three contexts (3; (3, 5); 3 with stride 2), six calls: three runs, three answers from summaries (the
    recursive call inside a run is not inlined, so it is no run of its own)."""
    interp, _ = _run(PADDING)
    assert (interp.memo.runs, interp.memo.uses, len(interp.memo.summaries)) == (3, 3, 3)


def test_a_summary_gives_what_the_run_gave(monkeypatch) -> None:
    """The values bound from summaries are those a run gives, and a list is made anew for each call (the caller
    may change it)."""
    _, scope = _run(PADDING)
    monkeypatch.setattr(summaries, "ENABLED", False)
    interp, run = _run(PADDING)
    assert (interp.memo.runs, interp.memo.uses) == (0, 0)
    names = "abcdef"
    assert [_shown(scope[n]) for n in names] == [_shown(run[n]) for n in names]
    assert scope["c"] is not scope["d"]


def test_summaries_off_gives_the_same_diagnostics(monkeypatch) -> None:
    """Every fixture: the same diagnostics with summaries as with every call run."""
    from fixinplace.engine import check_source

    files = sorted((ROOT / "fixtures").rglob("*.py"))
    assert len(files) > 50
    with_summaries = [[repr(d) for d in check_source(f.read_text(encoding="utf-8"), str(f))] for f in files]
    monkeypatch.setattr(summaries, "ENABLED", False)
    without = [[repr(d) for d in check_source(f.read_text(encoding="utf-8"), str(f))] for f in files]
    assert with_summaries == without
