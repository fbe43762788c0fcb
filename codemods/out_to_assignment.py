"""Strategy `out_to_assignment`: `torch.add(a, b, out=buf)` → `buf = torch.add(a, b)`.

Offered only when `buf` is read after the write (a loop variable rebound by the next iteration, such as
`torch.clamp(p, -c, c, out=p)` over a model's parameters, would lose the write's effect instead).
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement

NAME = "out_to_assignment"


class OutToAssignment(InPlaceFix):
    """The call with `out=` that makes up the statement on `line`, assigned to the buffer's name instead."""

    NAME = NAME
    DESCRIPTION = "Assign the result instead of writing it into the `out=` tensor."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])) or len(updated.body) != 1:
            return updated
        small = updated.body[0]
        if not (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)):
            return updated
        call = small.value
        out = [a for a in call.args if a.keyword is not None and a.keyword.value == "out"]
        if len(out) != 1:
            return updated
        target = code_of(out[0].value, self.module)
        args = [a for a in call.args if a is not out[0]]
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.applies()
        return replacing(statement(f"{target} = {code_of(call.with_changes(args=args), self.module)}\n",
                                   self.module), updated)

    EXAMPLES = (
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "y = torch.exp(x)\n"
            "loss = y.sum()\n"
            "with torch.no_grad():\n"
            "    torch.add(x, 1, out=y)\n"
            "loss.backward()\n"
            "print(y)\n",
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "y = torch.exp(x)\n"
            "loss = y.sum()\n"
            "with torch.no_grad():\n"
            "    y = torch.add(x, 1)\n"
            "loss.backward()\n"
            "print(y)\n",
        ),
    )
