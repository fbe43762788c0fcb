"""Fix planning and application: which diagnostics get which rewrite, and running the codemods to a fixpoint.

The analysis decides WHICH writes to rewrite and with which strategy (from the facts each diagnostic carries);
the codemods in `codemods/` only rewrite. Fixing runs in rounds: apply every chosen fix, re-analyse the new text,
repeat while something changed (a fix can expose the next hazard), at most `MAX_ROUNDS` times. The result always
parses: a round whose output does not parse is dropped whole.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from fixinplace.diagnostics import Diagnostic, Fix, Severity

MAX_ROUNDS = 5


@dataclass
class FixResult:
    """What fixing one file's text produced."""

    source: str  # the new text (== the input when nothing was fixed)
    applied: list[Diagnostic] = field(default_factory=list)  # diagnostics whose fix was applied
    remaining: list[Diagnostic] = field(default_factory=list)  # error/warning diagnostics in the new text

    @property
    def changed(self) -> bool:
        """Whether any fix was applied."""
        return bool(self.applied)


def plan_fix(diagnostic: Diagnostic) -> Fix | None:
    """The fix offered for a diagnostic (strategy and applicability), or None when no rewrite is correct."""
    from fixinplace import planning

    return planning.plan(diagnostic)


def attach_fixes(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The same diagnostics with their `fix` filled in (for `check --format json` and the LSP)."""
    from dataclasses import replace

    out = []
    for diagnostic in diagnostics:
        if diagnostic.severity is Severity.INFO:
            out.append(diagnostic)
            continue
        out.append(replace(diagnostic, fix=plan_fix(diagnostic)))
    return out


def fix_source(source: str, path: str, diagnostics_of, *, unsafe: bool = False) -> FixResult:
    """Apply every available fix (safe ones, and unsafe ones when `unsafe`) to `source`, to a fixpoint.

    `diagnostics_of(text) -> list[Diagnostic]` analyses a text (with the caller's settings: selection,
    suppressions); it is called once per round.
    """
    from codemods import apply_fixes

    applied: list[Diagnostic] = []
    tried: set[tuple[str, str, str]] = set()  # (code, statement text, strategy): a fix that did not help
    text = source
    for _ in range(MAX_ROUNDS):
        diagnostics = [d for d in attach_fixes(diagnostics_of(text)) if d.severity is not Severity.INFO]
        chosen = [d for d in diagnostics if d.fix is not None and (unsafe or d.fix.applicability == "safe")
                  and _attempt(d) not in tried]
        tried.update(_attempt(d) for d in chosen)
        if not chosen:
            break
        new_text, done = apply_fixes(text, chosen)
        if new_text == text or not done:
            break
        try:
            ast.parse(new_text)
        except SyntaxError:
            break  # never hand back code that does not parse
        text = new_text
        applied.extend(done)
    remaining = [d for d in attach_fixes(diagnostics_of(text)) if d.severity is not Severity.INFO]
    return FixResult(source=text, applied=applied, remaining=remaining)


def _attempt(d: Diagnostic) -> tuple[str, str, str]:
    """What identifies one fix attempt across rounds (positions move when lines are inserted)."""
    return (d.code, d.datum("text"), d.fix.strategy if d.fix else "")
