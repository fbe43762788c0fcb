"""Strategy `inplace_literal_off`: a module built in place by a flag that no literal at its constructor shows
(`nn.Dropout(p, **params)` with `params = {"inplace": inplace}`) gets the literal `True` that flag came from
turned to `False`: a parameter's default (`inplace: bool = True`, as torchvision's `ops.MLP` had) or a keyword of
a call (`MLP(..., inplace=True)`).

Always unsafe: the literal may decide more than the module that writes (other modules built from the same flag, or
other callers relying on the default); the modules' outputs and gradients are the same either way.
"""

from __future__ import annotations

import libcst as cst

from codemods._base import InPlaceFix
from fixinplace.facts import Span

NAME = "inplace_literal_off"


class InplaceLiteralOff(InPlaceFix):
    """The `True` at `literal` written as `False`."""

    NAME = NAME
    DESCRIPTION = "Turn off the literal `True` an in-place module's `inplace` flag comes from."

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        literal: Span = self.anchor["literal"]  # type: ignore[assignment]
        if self.applied or original.value != "True" or not self.spans(original, literal):
            return updated
        self.applies()
        return updated.with_changes(value="False")

    EXAMPLES = (
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "\n"
            "class MLP(nn.Sequential):\n"
            "    def __init__(self, sizes, inplace=True, dropout=0.5):\n"
            "        params = {} if inplace is None else {\"inplace\": inplace}\n"
            "        layers = []\n"
            "        for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):\n"
            "            layers += [nn.Linear(d_in, d_out), nn.ReLU(**params), nn.Dropout(dropout, **params)]\n"
            "        layers.append(nn.Linear(sizes[-2], sizes[-1]))\n"
            "        super().__init__(*layers)\n"
            "\n"
            "\n"
            "MLP([3, 8, 2])(torch.randn(4, 3)).sum().backward()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "\n"
            "class MLP(nn.Sequential):\n"
            "    def __init__(self, sizes, inplace=False, dropout=0.5):\n"
            "        params = {} if inplace is None else {\"inplace\": inplace}\n"
            "        layers = []\n"
            "        for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):\n"
            "            layers += [nn.Linear(d_in, d_out), nn.ReLU(**params), nn.Dropout(dropout, **params)]\n"
            "        layers.append(nn.Linear(sizes[-2], sizes[-1]))\n"
            "        super().__init__(*layers)\n"
            "\n"
            "\n"
            "MLP([3, 8, 2])(torch.randn(4, 3)).sum().backward()\n",
        ),
    )
