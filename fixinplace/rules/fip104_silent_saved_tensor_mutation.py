"""FIP104 silent-saved-tensor-mutation: a write through `.data`, a NumPy alias or a fused optimizer to a saved
tensor. No error is raised; the gradient is wrong."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import SaveInvalidated
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts, WriteForm
from fixinplace.rules.base import Finding, Repairs, Rule
from fixinplace.rules.wording import backward_at, save_text, saved_here, shares


@dataclass(frozen=True)
class SilentSavedTensorMutation(Rule):
    event = SaveInvalidated
    needs_backward = True

    def claims(self, event: SaveInvalidated) -> bool:
        return event.write.silent

    def finding(self, event: SaveInvalidated) -> Finding:
        write, save, site = event.write, event.save, event.site
        saved, written = save.group.label, write.label
        what = save_text(save, event.certain)
        backward = backward_at(event.backward_label, event.backward_line)
        if site.form == WriteForm.DATA_ASSIGN:
            message = (
                f"`{site.text}` gives `{saved}` other memory without a version bump, and autograd saved `{saved}` "
                f"itself, which now reads the new values; {what}. No error is raised: the backward of {backward} "
                f"silently computes a wrong gradient"
            )
        else:
            via = shares(written, saved, silent=True)
            if write.via == "numpy":
                how = ""
                via = f", a NumPy array that shares `{saved}`'s memory but not its version counter (`.numpy()`)"
            elif write.via == "data":
                how = "through `.data`"
            elif write.via == "base":
                how, via = "", f" and so is `{saved}`, which shares its storage but not its version counter"
            else:
                how = "by a fused optimizer (no version bump)"
            message = (
                f"`{written}` is written in place{' ' + how if how else ''}{via}; {what}. No error is raised: the "
                f"backward of {backward} silently computes a wrong gradient"
            )
        related = saved_here(save)
        return Finding(Severity.ERROR if event.certain else Severity.WARNING, message, related)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.silent(facts) + repairs.recompute_forward(facts)


RULE = SilentSavedTensorMutation(
    code="FIP104",
    name="silent-saved-tensor-mutation",
    severity=Severity.ERROR,
    found_in=(
        "writes through `.data` (`CallHandler.tensor_attribute`; `p.data = new`: `data_assigned`), a NumPy "
        "alias (`numpy_alias`, `numpy_call`) or a fused optimizer are `silent` writes on a group of their own "
        "linked to the tensor's (`Group.silent_of`); a write to the tensor itself is a silent write on its "
        "`.data`/`.numpy()` groups (`Group.data_group`, `numpy_group`), whose saves its version counter does "
        "not guard"
    ),
    severity_when=(
        "as FIP101"
    ),
    summary="Write through `.data`, a NumPy alias or a fused optimizer to a saved tensor: no error, a wrong gradient",
    explanation=(
        "`x.data` and the NumPy array of `x.numpy()` share storage with `x` but not its version counter, and fused "
        "optimizers (`fused=True`, measured on CPU) do not bump versions. A write through them to a tensor that a "
        "pending backward saved raises nothing: the backward silently uses the new values and the gradient is "
        "wrong. A silently wrong gradient is worse than an exception."
    ),
    flagged=(
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "y.data.mul_(2)  # expect: FIP104\n"
        "y.sum().backward()\n",
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "a = y.detach().numpy()\n"
        "a *= 2  # expect: FIP104\n"
        "y.sum().backward()\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * 3).sum()\n"
        "loss.backward()\n"
        "w.data.add_(-0.1 * w.grad)  # nothing pending needs w\n",
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "a = y.detach().numpy().copy()  # a copy: writing it leaves y alone\n"
        "a *= 2\n"
        "y.sum().backward()\n",
    ),
)
