"""Rewriting top-level units on their own (`fixinplace.fix.units`) gives what rewriting the whole module gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixinplace.fix.candidates import candidates
from fixinplace.fix.checked import Checker
from fixinplace.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
BEFORE = sorted((ROOT / "fixtures" / "fix").glob("*/before.py"))

CALLEE_AND_CALLER = '''import torch


def zero_first_row(h):
    h[0] = 0.0
    return h


def main():
    x = torch.randn(3, 4, requires_grad=True)
    e = torch.exp(x)
    out = zero_first_row(e)
    (out * torch.arange(4.0)).sum().backward()
    return x.grad
'''


def checker(unsafe: bool = True) -> Checker:
    settings = Settings(unsafe_fixes=unsafe)
    return Checker("program.py", settings, unsafe, settings.fix_style)


@pytest.mark.parametrize("path", BEFORE, ids=[p.parent.name for p in BEFORE])
def test_each_fix_made_on_units_is_the_fix_made_on_the_module(path: Path) -> None:
    check = checker()
    version = check.version(path.read_text(encoding="utf-8"))
    assert version.hazards
    for target in version.hazards:
        by_unit = check.first_passing_by_unit(version, target)
        whole = check.first_passing(version, target)
        assert (by_unit is None) == (whole is None), target
        if whole is not None:
            assert by_unit[0] == whole[0] and by_unit[1].source == whole[1].source and by_unit[2] == whole[2]


def test_a_clone_in_the_caller_for_a_write_in_the_callee_is_made_on_the_two_functions() -> None:
    check = checker()
    version = check.version(CALLEE_AND_CALLER)
    (target,) = version.hazards
    units = version.units()
    candidate = next(c for c in candidates(target, check.style) if c.strategy == "clone_at_save")
    rewrites = units.rewrite_across(candidate, target, "program.py")
    assert isinstance(rewrites, list) and [r.unit.index for r in rewrites] == [2]  # `main` changes, the callee not
    assert units.rewrite(candidate, target, "program.py") is False  # more than one unit: not for one-unit picks
    found = check.first_passing_by_unit(version, target)
    assert found is not None and found[1].source == check.first_passing(version, target)[1].source


def test_units_indented_otherwise_than_the_file_are_rewritten_with_the_module() -> None:
    # LibCST indents new blocks as the file's first block is indented: a unit read alone would use its own.
    source = "import torch\n\n\ndef two(x):\n  return x\n\n\n" + CALLEE_AND_CALLER.split("\n\n\n", 1)[1]
    check = checker()
    version = check.version(source)
    (target,) = version.hazards
    units = version.units()
    for candidate in candidates(target, check.style):
        assert units.rewrite_across(candidate, target, "program.py") is False
    found = check.first_passing_by_unit(version, target)
    assert found is not None and found[1].source == check.first_passing(version, target)[1].source


@pytest.mark.parametrize("opening", ["\n", "# a comment\n\n", "\n# \u2028 an odd comment\x1c\n"])
def test_the_lines_that_open_a_file_without_imports_stay_with_its_first_unit(opening: str) -> None:
    source = opening + "def f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"
    check = checker()
    version = check.version(source)
    for target in version.hazards:
        found = check.first_passing_by_unit(version, target)
        assert found is not None and found[1].source.startswith(opening + "def f(x):\n")
        assert found[1].source == check.first_passing(version, target)[1].source


def test_line_map_of_a_large_repetitive_text_places_each_line():
    # Many like functions, each fixed (a line added in each): difflib's exact matching is quadratic here, so past
    # JUNK_FROM lines the map anchors on the lines that do not repeat: the unique lines exact, the others within their
    # function's few changed lines (what `accepts` looks at).
    from fixinplace.fix.checked import JUNK_FROM, LineMap

    old = "".join(f"def f{k}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n\n\n" for k in range(400))
    new = "".join(f"def f{k}(x):\n    y = x.exp()\n    y = y.clone()\n    y.add_(1)\n    return y\n\n\n"
                  for k in range(400))
    assert old.count("\n") + new.count("\n") > JUNK_FROM
    lines = LineMap(old, new)
    for k in range(400):
        assert lines.new_range(1 + 6 * k, 1 + 6 * k) == (1 + 7 * k, 1 + 7 * k)  # each def line
        lo, hi = lines.new_range(3 + 6 * k, 3 + 6 * k)  # each write: within its function's changed lines
        assert lo <= 4 + 7 * k <= hi and hi - lo <= 3 and hi <= 7 * (k + 1)
