"""Strategy `augassign_out_of_place`: `x += 1` → `x = x + 1`; `x -= x.amax(1, keepdim=True)` →
`x = x - x.amax(1, keepdim=True)`.

Exact (safe) when the operand is a Python number or a tensor computed from `x` alone by ops that keep its dtype
and shape (a self-referential write, which no clone before it can fix: the operand saves `x` itself); with
another tensor operand (`out += residual`) exact when both dtypes are known to be equal, unsafe when they are not
known (an operand of a wider dtype would promote the result, where the in-place write casts it back), and not
offered when they are known to differ (`probs /= prior` with a float64 prior: a clone before the write keeps
float32). The in-place write ran
without error in the original, so broadcasting never makes `x` larger. Offered only when `x` is read after the
write.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement

NAME = "augassign_out_of_place"

_ATOMS = (cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.Attribute, cst.Call, cst.Subscript,
          cst.SimpleString, cst.ConcatenatedString)


class AugAssignOutOfPlace(InPlaceFix):
    """The augmented assignment to `name` on `line`, written as a plain assignment."""

    NAME = NAME
    DESCRIPTION = "Rebind instead of writing in place: `x += y` -> `x = x + y`."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])) or len(updated.body) != 1:
            return updated
        small = updated.body[0]
        if not isinstance(small, cst.AugAssign):
            return updated
        target = code_of(small.target, self.module)
        if target != self.anchor["name"]:
            return updated
        operator = code_of(small.operator, self.module).strip()[:-1].strip()  # "+=" -> "+"
        value = code_of(small.value, self.module)
        if not isinstance(small.value, _ATOMS) and not small.value.lpar:  # `x *= a + b` -> `x = x * (a + b)`
            value = f"({value})"
        self.applies()
        return replacing(statement(f"{target} = {target} {operator} {value}\n", self.module), updated)

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
        (
            "import torch\n"
            "\n"
            "\n"
            "def stable_logits(h, w):\n"
            "    logits = h @ w\n"
            "    logits -= logits.amax(dim=1, keepdim=True)\n"
            "    return logits\n",
            "import torch\n"
            "\n"
            "\n"
            "def stable_logits(h, w):\n"
            "    logits = h @ w\n"
            "    logits = logits - logits.amax(dim=1, keepdim=True)\n"
            "    return logits\n",
        ),
    )
