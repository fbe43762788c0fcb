"""Strategy `method_out_of_place`: `x.add_(1)` → `x = x.add(1)`; `z = x.mul_(2)` → `x = x.mul(2)` + `z = x`; a
chain `img.sub_(m).div_(s)` → `img = img.sub(m).div(s)`.

Exact (safe) when every other operand is a Python number (or a mask for `masked_fill_`), or a tensor computed from
`x` alone by ops that keep its dtype and shape (`w.div_(w.norm())` → `w = w.div(w.norm())`, where no clone
before the write could help, since the operand itself saves `w`): the out-of-place op then has the same dtype,
shape and gradient as the in-place one; so is a tensor operand known to have `x`'s dtype. With another tensor
operand it is unsafe (its dtype could promote the result), and not offered when its dtype is known to differ. Offered only when `x` is read after the write. On an argument it is safe only when no caller
in the file can see the write (each call uses the result and passes a temporary, or a name it rebinds or never
reads again): a helper that writes its argument and returns it.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement

NAME = "method_out_of_place"


def _in_place(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
        and node.func.attr.value.endswith("_") and not node.func.attr.value.endswith("__")


def _out_of_place(call: cst.BaseExpression) -> tuple[cst.BaseExpression | None, cst.BaseExpression | None]:
    """`x.sub_(m).div_(s)` → (`x.sub(m).div(s)`, `x`): every in-place call of the chain made out of place, and the
    receiver the chain starts from; (None, None) when `call` is not an in-place method call."""
    if not _in_place(call):
        return None, None
    inner, receiver = _out_of_place(call.func.value)
    if inner is None:
        inner, receiver = call.func.value, call.func.value
    func = call.func.with_changes(value=inner, attr=cst.Name(call.func.attr.value[:-1]))
    return call.with_changes(func=func), receiver


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
        new_call, receiver = _out_of_place(call)
        if new_call is None or code_of(receiver, self.module) != self.anchor["name"]:
            return updated
        receiver = code_of(receiver, self.module)
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
