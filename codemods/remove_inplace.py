"""Strategy `remove_inplace`: `F.relu(h, inplace=True)` → `F.relu(h)` (a bare statement becomes
`h = F.relu(h)`); `nn.ReLU(inplace=True)` → `nn.ReLU()` in the constructor of the module whose application
writes the saved tensor (in a chain such as `ReLU(inplace=True)` then `Dropout(inplace=True)`, the module that
writes, not the one that saved). Safe when nothing can read the module's input afterwards: a temporary no name
holds, or a name only this function sees that the call rebinds or nothing reads again. Unsafe when the input is
a caller's argument, an attribute, or a tensor another name also holds (`identity = x` before `x = self.act(x)`):
that reader would no longer see the write, and the program would compute something else."""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement
from fixinplace.facts import Span

NAME = "remove_inplace"


def without_inplace(call: cst.Call) -> cst.Call | None:
    """The call without `inplace=True` (keyword, or a trailing positional `True`); None if it has none."""
    args = list(call.args)
    for index, arg in enumerate(args):
        if arg.keyword is not None and arg.keyword.value == "inplace":
            del args[index]
            break
    else:
        if args and args[-1].keyword is None and isinstance(args[-1].value, cst.Name) and args[-1].value.value == "True":
            del args[-1]
        else:
            return None
    if args:
        args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return call.with_changes(args=args)


class RemoveInplace(InPlaceFix):
    """Drops `inplace=True`: from the constructor call at `ctor` (a Span), or from the call in the statement on
    `line` (rebinding `name` when the statement is a bare call)."""

    NAME = NAME
    DESCRIPTION = "Drop `inplace=True`, from the call that writes or from the constructor of the module that does."

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        ctor: Span | None = self.anchor.get("ctor")  # type: ignore[assignment]
        if self.applied or ctor is None or not self.spans(original, ctor):
            return updated
        result = without_inplace(updated)
        if result is None:
            return updated
        self.applies()
        return result

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        line = self.anchor.get("line")
        if self.applied or line is None or not self.starts_line(original, int(line)) or len(updated.body) != 1:
            return updated
        small = updated.body[0]
        if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
            call = without_inplace(small.value)
            if call is None:
                return updated
            self.applies()
            return replacing(statement(f"{self.anchor['name']} = {code_of(call, self.module)}\n", self.module),
                             updated)
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Call):
            call = without_inplace(small.value)
            if call is None:
                return updated
            self.applies()
            return updated.with_changes(body=[small.with_changes(value=call)])
        return updated

    EXAMPLES = (
        (
            "import torch\n"
            "import torch.nn.functional as F\n"
            "x = torch.randn(4, requires_grad=True)\n"
            "h = torch.sigmoid(x)\n"
            "h = F.relu(h, inplace=True)\n"
            "h.sum().backward()\n",
            "import torch\n"
            "import torch.nn.functional as F\n"
            "x = torch.randn(4, requires_grad=True)\n"
            "h = torch.sigmoid(x)\n"
            "h = F.relu(h)\n"
            "h.sum().backward()\n",
        ),
        (
            "import torch\n"
            "from torch import nn\n"
            "act = nn.ReLU(inplace=True)\n"
            "x = torch.randn(4, requires_grad=True)\n"
            "h = act(torch.tanh(x))\n"
            "h.sum().backward()\n",
            "import torch\n"
            "from torch import nn\n"
            "act = nn.ReLU()\n"
            "x = torch.randn(4, requires_grad=True)\n"
            "h = act(torch.tanh(x))\n"
            "h.sum().backward()\n",
        ),
    )

    NOT_REWRITTEN = (
        (
            "import torch\n"
            "import torch.nn.functional as F\n"
            "x = torch.randn(3, requires_grad=True)\n"
            "t = (x.exp(), 1)\n"
            "F.relu(t[0], inplace=True)\n"
            "t[0].sum().backward()\n",
            "the write goes to an element of a tuple, and no name holds the result to rebind: `t = F.relu(t[0])` "
            "would replace the tuple; `clone_at_save` fixes it",
        ),
    )
