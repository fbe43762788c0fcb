"""Strategy `remove_inplace`: `F.relu(h, inplace=True)` → `F.relu(h)` (a bare statement becomes
`h = F.relu(h)`); `nn.ReLU(inplace=True)` → `nn.ReLU()` in the constructor of a module applied hazardously."""

from __future__ import annotations

import libcst as cst

from codemods._util import code_of, replacing, statement

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


class _DropInplace(cst.CSTTransformer):
    def __init__(self) -> None:
        super().__init__()
        self.done = False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        if self.done:
            return updated
        result = without_inplace(updated)
        if result is None:
            return updated
        self.done = True
        return result


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """Drop `inplace=True` in the statement's call; rebind the written name for a bare call."""
    small = original.body[0]
    if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
        call = without_inplace(small.value)
        if call is None:
            return None
        root = diagnostic.datum("root")
        return replacing(statement(f"{root} = {code_of(call, module)}\n", module), original)
    dropper = _DropInplace()
    new = original.visit(dropper)
    return new if dropper.done else None


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
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
