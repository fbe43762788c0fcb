"""Strategy `out_to_assignment`: `torch.add(a, b, out=buf)` → `buf = torch.add(a, b)`."""

from __future__ import annotations

import libcst as cst

from codemods._util import code_of, replacing, statement

NAME = "out_to_assignment"


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """Drop `out=` and assign the result to the buffer's name."""
    small = original.body[0]
    if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
        return None
    call = small.value
    out = [a for a in call.args if a.keyword is not None and a.keyword.value == "out"]
    if len(out) != 1:
        return None
    target = code_of(out[0].value, module)
    args = [a for a in call.args if a is not out[0]]
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    new_call = call.with_changes(args=args)
    return replacing(statement(f"{target} = {code_of(new_call, module)}\n", module), original)


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "y = torch.exp(x)\n"
        "loss = y.sum()\n"
        "with torch.no_grad():\n"
        "    torch.add(x, 1, out=y)\n"
        "loss.backward()\n",
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "y = torch.exp(x)\n"
        "loss = y.sum()\n"
        "with torch.no_grad():\n"
        "    y = torch.add(x, 1)\n"
        "loss.backward()\n",
    ),
)
