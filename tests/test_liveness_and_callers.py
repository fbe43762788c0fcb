"""The two syntactic questions the fix facts rest on: may a name be read after a statement (a rebinding of a name
nothing reads again is no fix), and can any caller in the file see a function's write to its argument."""

from __future__ import annotations

import ast

import pytest

from fixinplace.analysis.callers import argument_is_private, returns_other_than
from fixinplace.analysis.liveness import read_after


def _at_marker(source: str) -> tuple[ast.AST, ast.stmt]:
    """The first function of `source` and its simple statement on the line marked `#W`."""
    tree = ast.parse(source)
    line = next(i for i, text in enumerate(source.splitlines(), 1) if "#W" in text)
    fn = tree.body[0]
    stmt = next(n for n in ast.walk(fn) if isinstance(n, (ast.Expr, ast.Assign, ast.AugAssign)) and n.lineno == line)
    return fn, stmt


LIVENESS = [
    ("loop variable rebound by the next iteration",
     "def f(c):\n  for p in c.parameters():\n    p.data.clamp_(-1, 1)  #W\n", "p", False),
    ("loop variable read after the loop", "def f(c):\n  for p in c.parameters():\n    p.mul_(2)  #W\n  return p\n",
     "p", True),
    ("returned", "def f(x):\n  e = x.exp()\n  e[0] = 1  #W\n  return e\n", "e", True),
    ("never read again", "def f(x):\n  e = x.exp()\n  l = e.sum()\n  e[0] = 1  #W\n  l.backward()\n", "e", False),
    ("read in the next iteration", "def f(x):\n  h = x\n  for i in range(3):\n    y = h * 2\n    h += 1  #W\n",
     "h", True),
    ("rebound first in the next iteration",
     "def f(x):\n  for i in range(3):\n    h = x.exp()\n    l = h.sum()\n    h[0] = 1  #W\n    l.backward()\n", "h", False),
    ("read in one branch", "def f(x):\n  e = x.exp()\n  e[0] = 1  #W\n  if x:\n    e = 3\n  return e\n", "e", True),
    ("rebound before the read", "def f(x):\n  e = x.exp()\n  e[0] = 1  #W\n  e = 3\n  return e\n", "e", False),
    ("after a break", "def f(x):\n  for i in range(2):\n    e = x.exp()\n    e[0] = 1  #W\n    break\n  return e\n",
     "e", True),
    ("a later loop over the same name", "def f(c):\n  for p in c.parameters():\n    p.data.clamp_(-1, 1)  #W\n"
     "  for p in c.buffers():\n    print(p)\n", "p", False),
    ("a comprehension's own variable", "def f(c):\n  for p in c.parameters():\n    p.data.clamp_(-1, 1)  #W\n"
     "  q = [p for p in c]\n", "p", False),
    ("a comprehension over it", "def f(c):\n  for p in c.parameters():\n    p.data.clamp_(-1, 1)  #W\n"
     "  q = [x for x in p]\n", "p", True),
    ("a closure", "def f(x):\n  e = x.exp()\n  e[0] = 1  #W\n  g = lambda: e\n", "e", True),
]


@pytest.mark.parametrize("what,source,name,expected", LIVENESS, ids=[c[0] for c in LIVENESS])
def test_read_after(what: str, source: str, name: str, expected: bool) -> None:
    fn, stmt = _at_marker(source)
    assert read_after(fn, stmt, name) is expected


HELPER = "def normalize_(img, m, s):\n    img.sub_(m).div_(s)\n    return img\n\n\n"
CALLERS = [
    ("the caller rebinds the name it passes", "def main(x):\n    x = normalize_(x, 1, 2)\n    return x\n", True),
    ("a temporary", "def main(x):\n    return normalize_(x * 2, 1, 2)\n", True),
    ("the argument is never read again", "def main(x):\n    y = normalize_(x, 1, 2)\n    return y\n", True),
    ("the caller reads the argument afterwards", "def main(x):\n    y = normalize_(x, 1, 2)\n    return x + y\n",
     False),
    ("the result is dropped", "def main(x):\n    normalize_(x, 1, 2)\n    return x\n", False),
    ("an attribute is passed", "def main(m):\n    return normalize_(m.buf, 1, 2)\n", False),
    ("a call's result may be kept elsewhere", "def main(m):\n    return normalize_(m.get(), 1, 2)\n", False),
    ("passed around as a value", "def main(x):\n    f = normalize_\n    return f(x, 1, 2)\n", False),
    ("called with *args", "def main(a):\n    return normalize_(*a)\n", False),
]


@pytest.mark.parametrize("what,caller,expected", CALLERS, ids=[c[0] for c in CALLERS])
def test_argument_is_private(what: str, caller: str, expected: bool) -> None:
    tree = ast.parse(HELPER + caller)
    assert argument_is_private(tree, tree.body[0], "img") is expected


def test_a_function_nothing_calls_may_be_called_from_elsewhere() -> None:
    tree = ast.parse(HELPER)
    assert argument_is_private(tree, tree.body[0], "img") is False


@pytest.mark.parametrize("body, expected", [
    ("    x.add_(1)\n    return y * 2\n", True),     # a forward: the write is a side effect
    ("    x[:, 0] = 0.0\n", False),                 # a helper whose purpose is the write
    ("    x.mul_(2)\n    return x\n", False),        # returns the argument it wrote
    ("    x.mul_(2)\n    return None\n", False),
    ("    def inner():\n        return 3\n    x.mul_(2)\n", False),  # a nested function's return is not its own
])
def test_returns_other_than(body: str, expected: bool):
    tree = ast.parse("def f(x, y):\n" + body)
    assert returns_other_than(tree.body[0], "x") is expected
