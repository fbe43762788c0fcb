"""Strategy `clone_before_write`: insert `NAME = NAME.clone()` before the statement that writes NAME.

Exact for every write form: the in-place op still runs, on a copy, so setitem's casting and broadcasting,
integer semantics and duplicate indices are kept, while the tensor autograd saved stays intact. Offered only when
the name is read after the write (otherwise the write, and the clone, would change nothing anyone sees), and only
for a name that holds the tensor: never for a container whose element is written (`d["a"].add_(1)`: a dict, list
or tuple has no `.clone()`). For a write under `torch.no_grad()` the clone goes before the `with` statement, where
grad mode is still on, so that the copy keeps the tensor's history.
"""

from __future__ import annotations

from typing import Union

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import statement, with_leading

NAME = "clone_before_write"


class CloneBeforeWrite(InPlaceFix):
    """`name = name.clone()` inserted before the statement starting on `line`."""

    NAME = NAME
    DESCRIPTION = "Clone the written tensor before the in-place write, so the tensor saved for backward stays intact."

    def _insert(self, original: cst.BaseStatement, updated: cst.BaseStatement) -> Union[cst.BaseStatement,
                                                                                         cst.FlattenSentinel]:
        if self.applied or not self.starts_line(original, int(self.anchor["line"])):
            return updated
        if isinstance(updated, cst.SimpleStatementLine) and len(updated.body) != 1:
            return updated  # `a = f(x); a[0] = 1`: the clone cannot go between the two on one line
        name = str(self.anchor["name"])
        clone = with_leading(statement(f"{name} = {name}.clone()\n", self.module), updated)
        self.applies()
        return cst.FlattenSentinel([clone, updated.with_changes(leading_lines=())])

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        return self._insert(original, updated)

    def leave_With(self, original: cst.With, updated: cst.With):
        return self._insert(original, updated)


    EXAMPLES = (
        (
            "import torch\n"
            "\n"
            "\n"
            "def scores(x):\n"
            "    p = torch.sigmoid(x)\n"
            "    loss = p.sum()\n"
            "    p[0] = 0.0\n"
            "    return loss + (p * 2).sum()\n",
            "import torch\n"
            "\n"
            "\n"
            "def scores(x):\n"
            "    p = torch.sigmoid(x)\n"
            "    loss = p.sum()\n"
            "    p = p.clone()\n"
            "    p[0] = 0.0\n"
            "    return loss + (p * 2).sum()\n",
        ),
    )

    NOT_REWRITTEN = (
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "d = {\"a\": x.exp()}\n"
            "d[\"a\"].add_(1)\n"
            "d[\"a\"].sum().backward()\n",
            "`d` is a dict: `d = d.clone()` would raise AttributeError; `clone_at_save` fixes it with "
            "`d = {\"a\": x.exp().clone()}`",
        ),
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "d = dict(a=x.exp())\n"
            "d[\"a\"].add_(1)\n"
            "d[\"a\"].sum().backward()\n",
            "`d` is a dict, however it is built",
        ),
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "ys = []\n"
            "ys.append(x.exp())\n"
            "ys[-1].add_(1)\n"
            "ys[-1].sum().backward()\n",
            "`ys` is a list",
        ),
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "t = (x.exp(), 1)\n"
            "t[0].add_(1)\n"
            "t[0].sum().backward()\n",
            "`t` is a tuple",
        ),
    )
