"""Strategy `clone_at_save`: clone an op's output where it is made, `e = torch.exp(x).clone()`, so that writes to
`e` (or to any view or alias of it) leave the tensor autograd saved intact.

Always exact and visible to every alias: the op's own output was a temporary nobody else held, and every later
reader sees the clone, written as before. Used for a write to a saved *output* through a view or another name.

Flagged and fixed:
    e = torch.exp(x); row = e[0]; row += 1; e.sum().backward()  →  e = torch.exp(x).clone(); ...
"""

from __future__ import annotations

import libcst as cst

NAME = "clone_at_save"

_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def cloned(expression: cst.BaseExpression) -> cst.BaseExpression:
    """`expression.clone()`, parenthesising the expression when it is not an atom."""
    if not isinstance(expression, _ATOMS) and not expression.lpar:
        expression = expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=expression, attr=cst.Name("clone")))


def span(diagnostic) -> tuple[int, int, int, int] | None:
    """(line, column, end_line, end_column) of the saving op, 1-based columns (from the diagnostic's facts)."""
    raw = diagnostic.datum("saved_span")
    if not raw:
        return None
    line, col, end_line, end_col = (int(x) for x in raw.split(":"))
    return line, col, end_line, end_col


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "x = torch.randn(3, 4, requires_grad=True)\n"
        "e = torch.exp(x)\n"
        "first_row = e[0]\n"
        "first_row += 1.0\n"
        "e.sum().backward()\n",
        "import torch\n"
        "x = torch.randn(3, 4, requires_grad=True)\n"
        "e = torch.exp(x).clone()\n"
        "first_row = e[0]\n"
        "first_row += 1.0\n"
        "e.sum().backward()\n",
    ),
)
