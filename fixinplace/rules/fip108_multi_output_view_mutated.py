"""FIP108 multi-output-view-mutated: an in-place write to one of the views an op returns several of (`unbind`,
`split`, `chunk`), which requires grad, in grad mode."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import TensorWritten
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts
from fixinplace.rules.base import Finding, Repairs, Rule


@dataclass(frozen=True)
class MultiOutputViewMutated(Rule):
    event = TensorWritten

    def claims(self, event: TensorWritten) -> bool:
        value = event.value
        # A leaf's views are the leaf rule's (FIP102): one error for the line is enough.
        return bool(value.multi_output_of) and value.rg is not False and value.leaf_rg is not True \
            and event.grad_mode is not False

    def finding(self, event: TensorWritten) -> Finding:
        value, label = event.value, event.label
        op = value.multi_output_of
        known = event.certain and value.rg is True and event.grad_mode is True
        if not value.multi_output_sure:
            how = (f" (when the ops applied to `{op}`'s output kept it a view: `reshape`, `flatten` and "
                   f"`contiguous` copy a tensor whose layout they cannot view)")
        elif not known:
            how = " (when it requires grad and grad mode is on, which this file does not show)"
        else:
            how = ""
        message = (
            f"in-place write to `{label}`, one of the views `{op}` returns (several views of one tensor), which "
            f"requires grad: PyTorch raises \"... is a view and is being modified inplace. This view is the output "
            f"of a function that returns multiple views\" here{how}. Write it out of place (into a new tensor), or "
            f"write a `.clone()` of the view"
        )
        sure = known and value.multi_output_sure
        return Finding(Severity.ERROR if sure else Severity.WARNING, message, subject=label)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.saved(facts)


RULE = MultiOutputViewMutated(
    code="FIP108",
    name="multi-output-view-mutated",
    severity=Severity.ERROR,
    found_in=(
        "ops the table measured as returning several views autograd will not let be written (`OpEntry.multi_view`: "
        "`unbind`, `split`, `chunk`, `split_with_sizes`) mark their outputs, the views of them and what iterating or "
        "unpacking their result gives (`TensorValue.multi_output_of`), as iterating or unpacking a tensor that surely "
        "is one (`TensorValue.single`) and requires grad does; `CallHandler.record_write` emits every write with its "
        "value"
    ),
    severity_when=(
        "`error` when the written value surely is such a view (the op's output, an element, a basic index or `.T` "
        "of it), requires grad and grad mode is on; `warning` after other ops (`reshape`, `t()`: a copy for some "
        "layouts) or when requires-grad or grad mode is not known"
    ),
    summary="In-place write to one of several views an op returned (`unbind`, `split`, `chunk`), which requires grad",
    explanation=(
        "`unbind`, `split`, `chunk` and `split_with_sizes` return several views of one tensor (as does iterating or "
        "unpacking a tensor: `for row in x`, `a, b = x` unbind it). Autograd cannot rebase the other views' "
        "history when one of them is written, so once the tensor requires grad, an in-place write to any of those "
        "views (or a view of one) in grad mode raises \"Output 0 of UnbindBackward0 is a view and is being "
        "modified inplace. This view is the output of a function that returns multiple views. Such functions do "
        "not allow the output views to be modified inplace\". Which ops do this is measured from the installed "
        "PyTorch (`python -m fixinplace.tables` writes one of their outputs): `tensor_split`, `hsplit` and "
        "`unsafe_split` do not. A write under `torch.no_grad()`, or to a `.clone()` or `.detach()` of the view, is "
        "allowed. Write the result into a new tensor instead (`torch.cat`/`torch.stack` of out-of-place parts), or "
        "clone the view before writing it. Iterating or unpacking a tensor is reported where the tensor surely is one "
        "(what an op or a torch layer that returns one tensor made) and requires grad: the analysis cannot always "
        "tell a tensor from a tuple a module returns (`out, weights = attn(x, x, x)`)."
    ),
    flagged=(
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "y = w * 2\n"
        "first, second = y.chunk(2)\n"
        "first.mul_(0.5)  # expect: FIP108\n"
        "torch.cat([first, second]).sum().backward()\n",
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "for row in w.exp():  # iterating a tensor unbinds it\n"
        "    row.clamp_(max=1.0)  # expect: FIP108\n",
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "rows = w.exp()\n"
        "for row in rows.unbind(0):\n"
        "    row.clamp_(max=1.0)  # expect: FIP108\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "y = w * 2\n"
        "first, second = y.chunk(2)\n"
        "first = first * 0.5  # out of place\n"
        "torch.cat([first, second]).sum().backward()\n",
        "import torch\n"
        "w = torch.randn(4, 3, requires_grad=True)\n"
        "y = w * 2\n"
        "parts = y.tensor_split(2)  # tensor_split's views may be written\n"
        "parts[0].mul_(0.5)\n"
        "y.sum().backward()\n",
        "import torch\n"
        "y = torch.randn(4, 3)\n"
        "for row in y:\n"
        "    row.mul_(2)  # nothing requires grad\n",
    ),
)
