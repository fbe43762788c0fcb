"""FIP109 no-grad-view-mutated: an in-place write, in grad mode, to a view made under `torch.no_grad()` of a
tensor that requires grad."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import TensorWritten
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts
from fixinplace.rules.base import Finding, Repairs, Rule


@dataclass(frozen=True)
class NoGradViewMutated(Rule):
    event = TensorWritten

    def claims(self, event: TensorWritten) -> bool:
        value = event.value
        # A leaf's views are the leaf rule's (FIP102), and a view of several outputs FIP108's: one error a line.
        return value.made_without_grad is not False and value.view and value.leaf_rg is not True \
            and not value.multi_output_of and event.grad_mode is not False

    def finding(self, event: TensorWritten) -> Finding:
        value, label = event.value, event.label
        known = event.certain and value.made_without_grad is True and event.grad_mode is True
        how = "" if known else (" (when its base requires grad and grad mode is on here, which this file does not "
                                "show)")
        message = (
            f"in-place write to `{label}`, a view made while grad mode was off of a tensor that requires grad, now "
            f"with grad mode on: PyTorch raises \"A view was created in no_grad mode and is being modified inplace "
            f"with grad mode enabled\" here{how}. Make the view and the write both inside the `torch.no_grad()` "
            f"block (the write is not tracked), both outside it (it is), or write a `.clone()` of the view"
        )
        return Finding(Severity.ERROR if known else Severity.WARNING, message, subject=label)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.saved(facts)


RULE = NoGradViewMutated(
    code="FIP109",
    name="no-grad-view-mutated",
    severity=Severity.ERROR,
    found_in=(
        "a view made while grad mode is off of a tensor that requires grad (`apply_op`'s view outputs, basic "
        "indexing) carries `TensorValue.made_without_grad`, and so do views of it; `CallHandler.record_write` emits "
        "every write with its value and the grad mode there"
    ),
    severity_when=(
        "`error` when the base surely requires grad and the write surely runs in grad mode; `warning` when either "
        "is not known"
    ),
    summary="In-place write, with grad mode on, to a view made under `torch.no_grad()` of a tensor that requires grad",
    explanation=(
        "A view made while grad mode is off (`with torch.no_grad(): row = h[0]`) of a tensor that requires grad is "
        "marked by autograd: writing it in place later with grad mode on is ambiguous (should autograd track the "
        "write into `h`'s graph or not?), so PyTorch raises \"A view was created in no_grad mode and is being "
        "modified inplace with grad mode enabled\". Views of such a view carry the mark too. Writing it inside the "
        "`no_grad` block is allowed (the write is not tracked), and so is writing a `.detach()` or `.clone()` of "
        "it. Move the view and the write both inside the block or both outside, or write a copy. A view of a leaf "
        "that requires grad (a parameter) is reported by FIP102, and one of several views (`unbind`, `split`) by "
        "FIP108."
    ),
    flagged=(
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "h = w * 2\n"
        "with torch.no_grad():\n"
        "    top = h[:2]\n"
        "top.mul_(0.5)  # expect: FIP109\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "h = w * 2\n"
        "with torch.no_grad():\n"
        "    top = h[:2]\n"
        "    top.mul_(0.5)  # inside the block: not tracked, allowed\n",
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "h = w * 2\n"
        "top = h[:2]\n"
        "top.mul_(0.5)  # made and written with grad mode on: tracked\n"
        "h.sum().backward()\n",
        "import torch\n"
        "h = torch.randn(4, 3)\n"
        "with torch.no_grad():\n"
        "    top = h[:2]\n"
        "top.mul_(0.5)  # nothing requires grad\n",
    ),
)
