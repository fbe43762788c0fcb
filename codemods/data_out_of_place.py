"""Strategy `data_out_of_place`: a write through `.data` made a differentiable out-of-place op:
`a.data /= a.data.sum(1, keepdim=True)` → `a = a / a.sum(1, keepdim=True)`, `delta.data.mul_(k)` →
`delta = delta.mul(k)`.

A write through `.data` changes a tensor behind autograd's back: no error, and the backward silently uses the new
values for the old computation. The usual intent is the op itself, differentiated: every `.data` of the written
tensor in the statement is dropped. Always unsafe: the gradients change to those of the new op (which is the
point). Offered only when the tensor's name is read after the write.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement

NAME = "data_out_of_place"

_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Attribute, cst.Call, cst.Subscript)


class _DropData(cst.CSTTransformer):
    """`name.data` → `name`."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.name = name

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        if updated.attr.value == "data" and isinstance(updated.value, cst.Name) and updated.value.value == self.name:
            return updated.value
        return updated


class DataOutOfPlace(InPlaceFix):
    """The `.data` write to `name` in the statement on `line`, as a differentiable out-of-place op."""

    NAME = NAME
    DESCRIPTION = "Make a write through `.data` a differentiable out-of-place op."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])) or len(updated.body) != 1:
            return updated
        name = str(self.anchor["name"])
        small = updated.body[0]
        data = f"{name}.data"
        if isinstance(small, cst.AugAssign) and code_of(small.target, self.module) == data:
            operator = code_of(small.operator, self.module).strip()[:-1].strip()
            value = small.value.visit(_DropData(name))
            text = code_of(value, self.module)
            if not isinstance(value, _ATOMS) and not value.lpar:
                text = f"({text})"
            new = f"{name} = {name} {operator} {text}\n"
        elif isinstance(small, cst.Expr) and isinstance(small.value, cst.Call) \
                and isinstance(small.value.func, cst.Attribute) and small.value.func.attr.value.endswith("_") \
                and code_of(small.value.func.value, self.module) == data:
            call = small.value.visit(_DropData(name))
            call = call.with_changes(func=call.func.with_changes(attr=cst.Name(small.value.func.attr.value[:-1])))
            new = f"{name} = {code_of(call, self.module)}\n"
        else:
            return updated
        self.applies()
        return replacing(statement(new, self.module), updated)

    EXAMPLES = (
        (
            "import torch\n"
            "\n"
            "\n"
            "def attention(scores, values):\n"
            "    a = scores.exp()\n"
            "    a.data /= a.data.sum(dim=1, keepdim=True)\n"
            "    return a @ values\n",
            "import torch\n"
            "\n"
            "\n"
            "def attention(scores, values):\n"
            "    a = scores.exp()\n"
            "    a = a / a.sum(dim=1, keepdim=True)\n"
            "    return a @ values\n",
        ),
    )
