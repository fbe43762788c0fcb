"""Strategy `clone_at_save`: clone the tensor an op saves, where the op runs: its output
(`e = torch.exp(x).clone()`) or its saved input (`sq = u.clone().pow(2)`), so that writes to that tensor (or to
any view or alias of it) leave what autograd saved intact.

Always exact and visible to every alias: the values and gradients are the same (a clone's gradient is the
identity), the write still changes the tensor every other name sees, and the op saved a private copy. This is
the meaning of a program that writes a saved tensor (the forward as computed, the backward of the values the op
saw). Offered only where the analysis knows the op (not for the result of an unknown call, which may be a tensor
another object keeps updating) and the value is a tensor.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from fixinplace.facts import Span

NAME = "clone_at_save"

_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript)


def cloned(expression: cst.BaseExpression) -> cst.BaseExpression:
    """`expression.clone()`, parenthesising the expression when it is not an atom."""
    if not isinstance(expression, _ATOMS) and not expression.lpar:
        expression = expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.Call(func=cst.Attribute(value=expression, attr=cst.Name("clone")))


class CloneAtSave(InPlaceFix):
    """`.clone()` on each expression at `spans` (the saved outputs and saved input operands)."""

    NAME = NAME
    DESCRIPTION = "Clone the tensor an op saves for backward where the op runs, so that later writes leave it intact."

    def on_leave(self, original_node, updated_node):
        result = super().on_leave(original_node, updated_node)
        if isinstance(original_node, cst.BaseExpression) and isinstance(result, cst.BaseExpression):
            spans: tuple[Span, ...] = self.anchor["spans"]  # type: ignore[assignment]
            if any(self.spans(original_node, span) for span in spans):
                self.applies()
                return cloned(result)
        return result


    EXAMPLES = (
        (
            "import torch\n"
            "x = torch.randn(3, 4, requires_grad=True)\n"
            "e = torch.exp(x)\n"
            "first_row = e[0]\n"
            "first_row += 1.0\n"
            "e.sum().backward()\n",
            "import torch\n"
            "x = torch.randn(3, 4, requires_grad=True)\n"
            "e = torch.exp(x).clone()\n"
            "first_row = e[0]\n"
            "first_row += 1.0\n"
            "e.sum().backward()\n",
        ),
        (
            "import torch\n"
            "\n"
            "\n"
            "def zero_first_row(h):\n"
            "    h[0] = 0.0\n"
            "    return h\n"
            "\n"
            "\n"
            "x = torch.randn(3, 4, requires_grad=True)\n"
            "u = x * 2.0\n"
            "sq = u.pow(2)\n"
            "out = zero_first_row(u)\n"
            "(sq.sum() + out.sum()).backward()\n",
            "import torch\n"
            "\n"
            "\n"
            "def zero_first_row(h):\n"
            "    h[0] = 0.0\n"
            "    return h\n"
            "\n"
            "\n"
            "x = torch.randn(3, 4, requires_grad=True)\n"
            "u = x * 2.0\n"
            "sq = u.clone().pow(2)\n"
            "out = zero_first_row(u)\n"
            "(sq.sum() + out.sum()).backward()\n",
        ),
        (
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "d = {\"a\": x.exp()}\n"
            "d[\"a\"].add_(1)\n"
            "d[\"a\"].sum().backward()\n",
            "import torch\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "d = {\"a\": x.exp().clone()}\n"
            "d[\"a\"].add_(1)\n"
            "d[\"a\"].sum().backward()\n",
        ),
    )
