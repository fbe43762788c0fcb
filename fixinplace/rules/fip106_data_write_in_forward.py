"""FIP106 data-write-in-forward: a parameter written through `.data` inside `forward`, which then uses it."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import HiddenDataWrite
from fixinplace.diagnostics import Severity
from fixinplace.rules.base import Finding, Rule


@dataclass(frozen=True)
class DataWriteInForward(Rule):
    event = HiddenDataWrite

    def finding(self, event: HiddenDataWrite) -> Finding:
        used = f" at line {event.used_line}" if event.used_line else ""
        param = event.param
        message = (f"`{event.label}` writes the parameter `{param}` through `.data` inside `forward`, which then "
                   f"uses it{used}: autograd never sees the op that made the new values, so the gradient treats them "
                   f"as the parameter's own and the optimizer steps from them. If the op belongs to the model, "
                   f"compute it out of place from `{param}` and use the result; if it is a constraint between steps, "
                   f"apply it after `optimizer.step()` under `torch.no_grad()`")
        return Finding(Severity.WARNING, message)


RULE = DataWriteInForward(
    code="FIP106",
    name="data-write-in-forward",
    severity=Severity.WARNING,
    found_in=(
        "a write through a parameter's `.data` in grad mode marks the parameter with the `forward` being run "
        "(`CallHandler.note_hidden_write`, calls/aliases.py); an op that uses the parameter while that "
        "forward still runs (`leaf_uses`) reports it (`hidden_write_used`)"
    ),
    severity_when=(
        "`warning`"
    ),
    summary="A parameter written through `.data` inside `forward`, which then uses it: an op autograd never sees",
    explanation=(
        "`self.weight.data = self.weight.data / norm` (or `self.weight.data.div_(norm)`) in `forward`, followed by "
        "an op on `self.weight`, computes the forward with the written values, but autograd does not see the op "
        "that made them: the gradient treats the new values as the parameter's own (the renormalisation, clamp or "
        "projection is not differentiated) and the optimizer, with its state, steps from them. Nothing raises. A "
        "warning, because a constraint applied on purpose between steps looks the same: when the op belongs to the "
        "model, compute it out of place (`w = self.weight / self.weight.norm(dim=1, keepdim=True)`) and use `w`; "
        "when it is a constraint, apply it after `optimizer.step()` under `torch.no_grad()`. A write to a buffer, "
        "a write under `torch.no_grad()`, and a write after the parameter's last use in `forward` are not reported."
    ),
    flagged=(
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "class NormLinear(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4, 4))\n"
        "\n"
        "    def forward(self, x):\n"
        "        self.weight.data = self.weight.data / self.weight.data.norm(dim=1, keepdim=True)  # expect: FIP106\n"
        "        return F.linear(x, self.weight)\n",
    ),
    clean=(
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "class NormLinear(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4, 4))\n"
        "\n"
        "    def forward(self, x):\n"
        "        w = self.weight / self.weight.norm(dim=1, keepdim=True)  # differentiated\n"
        "        return F.linear(x, w)\n",
    ),
)
