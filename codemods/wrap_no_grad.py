"""Strategy `wrap_no_grad`: a leaf update in grad mode (`w -= lr * w.grad`) goes under `with torch.no_grad():`.

Rebinding instead (`w = w - lr * w.grad`) would turn the leaf into a non-leaf and silently stop it training.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import torch_name

NAME = "wrap_no_grad"


class WrapNoGrad(InPlaceFix):
    """The statement starting on `line` wrapped in `with torch.no_grad():`."""

    NAME = NAME
    DESCRIPTION = "Update a leaf tensor that requires grad under `torch.no_grad()`."

    def _wrap(self, original: cst.BaseStatement, updated: cst.BaseStatement):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])):
            return updated
        if isinstance(updated, cst.SimpleStatementLine) and len(updated.body) != 1:
            return updated
        torch = torch_name(self.module)
        if torch is None:
            return updated
        self.applies()
        return cst.With(
            items=[cst.WithItem(item=cst.parse_expression(f"{torch}.no_grad()"))],
            body=cst.IndentedBlock(body=[updated.with_changes(leading_lines=())]),
            leading_lines=updated.leading_lines,
        )

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        return self._wrap(original, updated)

    def leave_For(self, original: cst.For, updated: cst.For):
        return self._wrap(original, updated)

    EXAMPLES = (
        (
            "import torch\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "loss = (w * 2).sum()\n"
            "loss.backward()\n"
            "w -= 0.1 * w.grad\n",
            "import torch\n"
            "w = torch.randn(3, requires_grad=True)\n"
            "loss = (w * 2).sum()\n"
            "loss.backward()\n"
            "with torch.no_grad():\n"
            "    w -= 0.1 * w.grad\n",
        ),
    )
