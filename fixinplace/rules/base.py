"""What a rule is: its code, name, default severity, docs and examples, the analysis event it claims, the message
it words for that event, and the rewrites it asks the fix stage to try."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional, Protocol

from fixinplace.diagnostics import Related, Severity
from fixinplace.facts import WriteFacts


@dataclass(frozen=True)
class Finding:
    """What a rule says about one event: the severity, the message, the places it points to, and the written
    expression when the message starts "in-place write to `subject`" (a chain of in-place calls is named after
    it)."""

    severity: Severity
    message: str
    related: tuple[Related, ...] = ()
    subject: str = ""


class Repairs(Protocol):
    """The families of rewrites the fix stage can plan for a write (`fixinplace.fix.candidates.Planner`); a rule's
    `candidates` picks and orders them. Each returns candidate rewrites (empty when none applies)."""

    def saved(self, facts: WriteFacts) -> list:
        """Out of place, or a clone where the op saves (a write to a saved tensor)."""

    def leaf(self, facts: WriteFacts) -> list:
        """Under `torch.no_grad()`, or a new tensor (a write to a leaf)."""

    def move_after_backward(self, facts: WriteFacts) -> list:
        """The step (or the update) moved after the backward it breaks."""

    def recompute_forward(self, facts: WriteFacts) -> list:
        """The forward recomputed after the write, for the backward that needs it."""

    def detach_carried(self, facts: WriteFacts) -> list:
        """The state a loop carries into the next iteration detached, so a backward stops at the iteration."""

    def silent(self, facts: WriteFacts) -> list:
        """A silent (`.data`, NumPy) write made differentiable or out of place: all unsafe."""

    def array(self, facts: WriteFacts) -> list:
        """A copy where a tensor sharing a NumPy array is made, or the write out of place: all unsafe."""

    def without_inplace(self, facts: WriteFacts) -> list:
        """The call without `inplace=True` (or the module built without it): unsafe."""


@dataclass(frozen=True)
class Rule:
    """One hazard kind: a module of `fixinplace.rules` defines a subclass and its one instance, `RULE`.

    The docs pages, `fixinplace rule CODE`, SARIF's rule metadata and the rule-example tests read the fields;
    the analysis's reporter hands each event to the rule that claims it (`event`, `claims`) and reports its
    `finding`; the fix stage tries the rule's `candidates`."""

    code: str
    name: str
    severity: Severity  # the severity when the analysis is sure; uncertain cases are reported as warnings
    summary: str
    explanation: str
    flagged: tuple[str, ...]  # programs with `# expect: CODE` on each line that must be reported
    clean: tuple[str, ...]  # programs that must get no error or warning
    found_in: str = ""  # where the analysis finds it (docs/architecture.md's table, generated)
    severity_when: str = ""  # when it is reported with which severity (the same table)

    #: The analysis event (`fixinplace.analysis.events`) this rule words; None for a rule without events.
    event: ClassVar[Optional[type]] = None
    #: Whether the write itself raises (the leaf error): a write certain to raise never reaches a backward, so
    #: the hazards of rules that `need_backward` are not reported at it, and its fix comes first on its line.
    raises_at_write: ClassVar[bool] = False
    #: Whether the hazard is a backward's (a saved tensor changed): moot at a write that raises itself.
    needs_backward: ClassVar[bool] = False

    @property
    def fixable(self) -> bool:
        """Whether the rule asks the fix stage for rewrites (its class defines `candidates`)."""
        return type(self).candidates is not Rule.candidates

    def claims(self, event: Any) -> bool:
        """Whether this rule reports `event` (of its `event` type); one rule claims each event."""
        return True

    def finding(self, event: Any) -> Finding:
        """The severity and the message for one event this rule claims."""
        raise NotImplementedError(f"{self.code} claims events but words none")

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        """The rewrites to try for a diagnostic of this rule, in order of preference (empty: no fix)."""
        return []
