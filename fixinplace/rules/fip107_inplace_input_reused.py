"""FIP107 inplace-input-reused: an in-place activation's input is read again after the call, under its old
name."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import InputReused
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts
from fixinplace.rules.base import Finding, Repairs, Rule
from fixinplace.rules.wording import inplace_module


@dataclass(frozen=True)
class InplaceInputReused(Rule):
    event = InputReused

    def finding(self, event: InputReused) -> Finding:
        site, root = event.site, event.root
        ctor = site.setting.module_ctor
        by = f"`{site.op}` ({inplace_module(site.setting)})" if ctor else f"`{site.op}`"
        message = (f"{by} writes `{root}` in place, and its result is bound to `{event.bound}`; `{root}` is read "
                   f"again afterwards, where it holds the written values, not the ones before the call. Nothing "
                   f"raises. If that read means the values before the call, do not write in place (`inplace=False`)")
        return Finding(Severity.WARNING, message)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.without_inplace(facts) + repairs.recompute_forward(facts)


RULE = InplaceInputReused(
    code="FIP107",
    name="inplace-input-reused",
    severity=Severity.WARNING,
    found_in=(
        "`CallHandler.record_write` for an in-place module or `inplace=True` call (`note_reused_input`): the "
        "written root is a local or argument bound to another name by the statement, and read afterwards "
        "(`liveness.read_after`)"
    ),
    severity_when=(
        "`warning`"
    ),
    summary="An in-place activation's input is read again after the call, under its old name",
    explanation=(
        "`out = self.block(x)` where the block's first layer is `nn.ReLU(inplace=True)` (or `out = F.relu(x, "
        "inplace=True)`) writes `x` itself: a later `out += x` (a residual connection) adds the activated values, "
        "not the input. Nothing raises when no op saved `x`, and the outputs and gradients silently differ from "
        "what the code reads as. Reported when the call's result is bound to another name and `x` is read again "
        "afterwards; a warning, because code may mean the activated values. The fix builds the module (or calls "
        "the function) without `inplace=True` (unsafe: the values the later read sees change, which is the point)."
    ),
    flagged=(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class ResBlock(nn.Module):\n"
        "    def __init__(self, channel):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(channel, channel, 3, padding=1))\n"
        "\n"
        "    def forward(self, input):\n"
        "        out = self.conv(input)  # expect: FIP107\n"
        "        out += input\n"
        "        return out\n",
    ),
    clean=(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class ResBlock(nn.Module):\n"
        "    def __init__(self, channel):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Sequential(nn.ReLU(), nn.Conv2d(channel, channel, 3, padding=1))\n"
        "\n"
        "    def forward(self, input):\n"
        "        out = self.conv(input)\n"
        "        out += input\n"
        "        return out\n",
    ),
)
