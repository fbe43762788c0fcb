"""FIP102 leaf-mutated: an in-place write to a leaf tensor that requires grad, in grad mode."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import LeafWritten
from fixinplace.diagnostics import Related, Severity
from fixinplace.facts import WriteFacts, WriteForm
from fixinplace.rules.base import Finding, Repairs, Rule


_FLAGGED = (WriteForm.INPLACE_KW, WriteForm.INPLACE_MODULE)


@dataclass(frozen=True)
class LeafMutated(Rule):
    event = LeafWritten
    raises_at_write = True

    def finding(self, event: LeafWritten) -> Finding:
        if event.certain:
            what, quoted = ("a view of a leaf tensor", "a view of a leaf Variable") if event.view else \
                ("a leaf tensor", "a leaf Variable")
            raised = f"{quoted} that requires grad is being used in an in-place operation"
            if event.view and event.multi_output_of:  # autograd checks the view's kind first
                what = f"one of the views `{event.multi_output_of}` returns of a leaf tensor"
                raised = "... is a view and is being modified inplace. This view is the output of a function that " \
                         "returns multiple views"
            elif event.view and event.made_without_grad is True:
                what = "a view made in no-grad mode of a leaf tensor"
                raised = "A view was created in no_grad mode and is being modified inplace with grad mode enabled"
            # An op that writes only because of its `inplace` flag (an activation on an input) is meant to compute
            # its result: run it out of place. Other writes update the leaf, or a copy of it.
            advice = "Run the op without `inplace=True`" if event.site.form in _FLAGGED else \
                "Update it under `torch.no_grad()`, or write a copy"
            message = (
                f"in-place write to `{event.label}`, {what} that requires grad ({event.why}), in grad mode: PyTorch "
                f"raises \"{raised}\" here. {advice}"
            )
        else:
            message = (
                f"in-place write to `{event.label}` ({event.why}): if it is a leaf tensor that requires grad and grad "
                f"mode is on, PyTorch raises \"a leaf Variable that requires grad is being used in an in-place "
                f"operation\""
            )
        created = event.created
        related = (Related(created[0], created[1], "the leaf tensor is created here"),) if created else ()
        return Finding(Severity.ERROR if event.certain else Severity.WARNING, message, related, subject=event.label)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.leaf(facts) + repairs.recompute_forward(facts)


RULE = LeafMutated(
    code="FIP102",
    name="leaf-mutated",
    severity=Severity.ERROR,
    found_in=(
        "`CallHandler.record_write` (calls/ops.py): the written tensor is a leaf that requires grad (an "
        "argument only where a seen call passes one)"
    ),
    severity_when=(
        "`error` for a known leaf in known grad mode; `warning` when grad mode or the call's path is not "
        "known"
    ),
    summary="In-place write to a leaf tensor that requires grad, in grad mode",
    explanation=(
        "A leaf tensor that requires grad (`torch.ones(3, requires_grad=True)`, an `nn.Parameter`, a module's "
        "`self.weight`) or a view of one cannot be written in place while grad mode is on: PyTorch raises \"a "
        "leaf Variable that requires grad is being used in an in-place operation\" at the write. Parameter updates "
        "belong under `torch.no_grad()`. A write to a function's argument is reported where a call passes a leaf "
        "(at the call, when the function is in another file); with no caller seen, it is not reported: a function "
        "that writes its argument does what its callers ask."
    ),
    flagged=(
        "import torch\n"
        "w = torch.zeros(3, requires_grad=True)\n"
        "w.add_(1)  # expect: FIP102\n",
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "w -= 0.1 * w.grad  # expect: FIP102\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "x = F.relu(x, inplace=True)  # expect: FIP102\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "with torch.no_grad():\n"
        "    w -= 0.1 * w.grad\n",
    ),
)
