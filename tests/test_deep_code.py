"""Deeply nested code that CPython compiles is analysed and fixed like any other (never "internal error")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from clirun import cli

from fixinplace.deep import deep_call

HEAD = "import torch\n\n\ndef f(x):\n    y = x.exp()\n"
DEEP = {
    "plus_chain": HEAD + "    z = " + " + ".join(["y"] * 490) + "\n    y.add_(1)\n    return z\n",
    "call_chain": HEAD + "    z = y" + ".abs()" * 500 + "\n    y.add_(1)\n    return z\n",
}


@pytest.mark.parametrize("name", sorted(DEEP))
def test_check_and_fix_deep_expressions(tmp_path: Path, name: str):
    text = DEEP[name]
    compile(text, name, "exec")  # CPython compiles it
    (tmp_path / "m.py").write_text(text)
    check = cli("check", "m.py", "--no-cache", cwd=tmp_path)
    assert check.returncode == 1 and check.stdout.startswith("m.py:7:5: FIP101"), check.stdout + check.stderr
    fix = cli("fix", "--apply", "m.py", cwd=tmp_path)
    assert fix.returncode == 0, fix.stdout + fix.stderr
    assert (tmp_path / "m.py").read_text() != text
    again = cli("check", "m.py", "--no-cache", cwd=tmp_path)
    assert again.returncode == 0 and "All checks passed!" in again.stdout, again.stdout + again.stderr


def test_deep_call_reruns_only_what_overflows_and_restores_the_limit():
    def depth(n: int) -> int:
        return 0 if n == 0 else 1 + depth(n - 1)

    limit = sys.getrecursionlimit()
    assert deep_call(depth, 10) == 10
    assert deep_call(depth, 20_000) == 20_000  # past the default limit: run again in a deep thread
    assert sys.getrecursionlimit() == limit
    with pytest.raises(RecursionError):
        deep_call(depth, 10**6)  # a runaway recursion still ends in a RecursionError
    with pytest.raises(ZeroDivisionError):
        deep_call(lambda: 1 / 0)


def test_quick_fix_of_a_deep_expression():
    """The editor's quick fix (`apply_offered`) makes the same rewrite as `fix` on deeply nested code."""
    from fixinplace.engine import check_source
    from fixinplace.fix.checked import apply_offered, fix_text, offer
    from fixinplace.settings import Settings

    text = DEEP["plus_chain"]
    (offered,) = offer(text, "m.py", check_source(text, "m.py"), Settings())
    assert apply_offered(text, "m.py", offered) == fix_text(text, "m.py", Settings()).source != text
