"""Strategy `augassign_out_of_place`: `x += 1` → `x = x + 1` (Python-number operand: same dtype and shape)."""

from __future__ import annotations

import libcst as cst

from codemods._util import code_of, replacing, statement

NAME = "augassign_out_of_place"

_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.Attribute, cst.Call, cst.Subscript,
          cst.SimpleString, cst.ConcatenatedString)


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """Rebind the target to the binary operation."""
    small = original.body[0]
    if not isinstance(small, cst.AugAssign):
        return None
    target = code_of(small.target, module)
    if target != diagnostic.datum("root"):
        return None
    operator = code_of(small.operator, module).strip()[:-1].strip()  # "+=" -> "+"
    value = code_of(small.value, module)
    if not isinstance(small.value, _ATOMS) and not small.value.lpar:  # `x *= a + b` -> `x = x * (a + b)`
        value = f"({value})"
    return replacing(statement(f"{target} = {target} {operator} {value}\n", module), original)


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "e = x.exp()\n"
        "e *= 0.5\n"
        "e.sum().backward()\n",
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "e = x.exp()\n"
        "e = e * 0.5\n"
        "e.sum().backward()\n",
    ),
)
