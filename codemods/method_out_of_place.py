"""Strategy `method_out_of_place`: `x.add_(1)` → `x = x.add(1)`; `z = x.mul_(2)` → `x = x.mul(2)` + `z = x`.

Exact (safe) when every other operand is a Python number (or a mask for `masked_fill_`), or a tensor computed from
`x` alone by ops that keep its dtype and shape (`w.div_(w.norm())` → `w = w.div(w.norm())`, where no clone
before the write could help, since the operand itself saves `w`): the out-of-place op then has the same dtype,
shape and gradient as the in-place one. With another tensor operand it is unsafe (that tensor's dtype could
promote the result). Offered only when `x` is read after the write.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement

NAME = "method_out_of_place"


class MethodOutOfPlace(InPlaceFix):
    """The in-place method call in the statement on `line`, on the receiver `name`, made out of place."""

    NAME = NAME
    DESCRIPTION = "Call the out-of-place method and rebind the receiver: `x.add_(y)` -> `x = x.add(y)`."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])) or len(updated.body) != 1:
            return updated
        small = updated.body[0]
        assigned = None
        if isinstance(small, cst.Expr):
            call = small.value
        elif isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
            call, assigned = small.value, small.targets[0].target.value
        else:
            return updated
        if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute)
                and call.func.attr.value.endswith("_") and not call.func.attr.value.endswith("__")):
            return updated
        receiver = code_of(call.func.value, self.module)
        if receiver != self.anchor["name"]:
            return updated
        new_call = call.with_changes(func=call.func.with_changes(attr=cst.Name(call.func.attr.value[:-1])))
        first = replacing(statement(f"{receiver} = {code_of(new_call, self.module)}\n", self.module), updated)
        self.applies()
        if assigned is None or assigned == receiver:
            return first
        return cst.FlattenSentinel([first, statement(f"{assigned} = {receiver}\n", self.module)])

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
        (
            "import torch\n"
            "\n"
            "\n"
            "def unit_rows(w):\n"
            "    w = w * 1.0\n"
            "    w.div_(w.norm(dim=1, keepdim=True))\n"
            "    return w\n",
            "import torch\n"
            "\n"
            "\n"
            "def unit_rows(w):\n"
            "    w = w * 1.0\n"
            "    w = w.div(w.norm(dim=1, keepdim=True))\n"
            "    return w\n",
        ),
    )
