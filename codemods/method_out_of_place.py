"""Strategy `method_out_of_place`: `x.add_(1)` → `x = x.add(1)`; `z = x.mul_(2)` → `x = x.mul(2)` + `z = x`.

Planned only when every other operand is a Python number (or a mask for `masked_fill_`): the out-of-place op
then has the same dtype, shape and gradient as the in-place one.
"""

from __future__ import annotations

import libcst as cst

from codemods._util import code_of, replacing, statement

NAME = "method_out_of_place"


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """Rebind the receiver to the out-of-place call (and keep an assigned name pointing at it)."""
    small = original.body[0]
    assigned = None
    if isinstance(small, cst.Expr):
        call = small.value
    elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        call = small.value
        assigned = small.targets[0].target.value
    else:
        return None
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.func.attr.value.endswith("_")):
        return None
    receiver = code_of(call.func.value, module)
    if receiver != diagnostic.datum("root"):
        return None
    new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name(call.func.attr.value[:-1])))
    first = replacing(statement(f"{receiver} = {code_of(new_call, module)}\n", module), original)
    if assigned is None:
        return first
    return cst.FlattenSentinel([first, statement(f"{assigned} = {receiver}\n", module)])


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "g = torch.sigmoid(x)\n"
        "g.add_(1)  # shift\n"
        "g.sum().backward()\n",
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "g = torch.sigmoid(x)\n"
        "g = g.add(1)  # shift\n"
        "g.sum().backward()\n",
    ),
)
