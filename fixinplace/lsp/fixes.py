"""The checked fix of each diagnostic of one document text, computed once and shared by hover and quick fixes.

It is the fix `fixinplace.fix.offer` gives (the first candidate that passes the check, an unsafe one when no safe
one does and unsafe fixes are off), made cheaper for an editor, which asks on every hover and cursor move:

- the text's analysis is the one its diagnostics were published from (`offer` analyses the text again first);
- a candidate is rewritten on its top-level function or class alone when it stays inside it
  (`Checker.first_passing_by_unit`, as `fix_text` does for many hazards): LibCST's pass over a 1,000-line module takes
  longer than the analysis of the text; otherwise on the whole module, as `offer` does;
- the rewritten text is kept, so a quick fix is not rewritten a second time (`apply_offered`);
- each answer is kept with the text: asking again costs nothing.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from typing import Callable, Optional, Sequence

from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.reading import is_notebook
from fixinplace.settings import Settings


def key(d: Diagnostic) -> tuple[int, int, str]:
    """What tells a diagnostic of one text from the others (as `offer` matches them)."""
    return d.line, d.column, d.code


@dataclass(frozen=True)
class Offered:
    """A diagnostic with its checked fix (`fix` None when none passes), and the text that fix makes."""

    diagnostic: Diagnostic
    new_text: Optional[str]
    # A call's diagnostic repaired at its writes in other files: each file's path and its (old, new) text.
    others: tuple[tuple[str, str, str], ...] = ()


class TextFixes:
    """The checked fixes of the diagnostics of one text under one settings, each computed on first demand.

    Safe to share between threads: one computation runs at a time (they share one LibCST tree)."""

    def __init__(self, text: str, path: str, settings: Settings, hazards: Sequence[Diagnostic],
                 admissible: Optional[Callable[[str], bool]] = None, uris: tuple[str, ...] = (),
                 describe: Optional[Callable[[str], str]] = None) -> None:
        """`hazards`: every error and warning of `text`, of every rule (`fixinplace.diagnostics.blocking` of
        `fixinplace.engine.analyse_source`), what the check compares a rewrite's hazards with; `admissible` and
        `describe` as for `offer`; `uris`: the documents the text is shown in (a notebook's cells, which
        `admissible` splits it into). Cheap: nothing is computed (nor LibCST imported) before a fix is asked for."""
        self.text = text
        self.path = path
        self.settings = settings
        self.uris = uris
        self._hazards = list(hazards)
        self._admissible = admissible
        self._describe = describe
        self._checker = None  # fixinplace.fix.checked's Checker and Version of the text, made at the first fix
        self._version = None
        self._found: dict[tuple[int, int, str], Offered] = {}
        self._lock = threading.Lock()
        self.cache: dict[object, object] = {}  # what requests build from the fixes (code actions), kept with them

    @property
    def checker(self):  # noqa: ANN201 (fixinplace.fix.checked.Checker: LibCST is imported with it)
        """What tries the candidates (made once)."""
        if self._checker is None:
            from fixinplace.fix.checked import Checker, Version  # deferred: LibCST, loaded at the first fix

            self._version = Version(self.text, self._hazards)
            self._checker = Checker(self.path, self.settings, self.settings.unsafe_fixes, self.settings.fix_style,
                                    admissible=self._admissible)
        return self._checker

    @property
    def version(self):  # noqa: ANN201 (fixinplace.fix.checked.Version)
        """The text with its hazards, and its LibCST tree once parsed (made once)."""
        self.checker
        return self._version

    def known(self, d: Diagnostic) -> Optional[Offered]:
        """The fix of `d` when it is computed already, else None (nothing is computed)."""
        return self._found.get(key(d))

    def offered(self, d: Diagnostic) -> Offered:
        """`d` with its checked fix (computed now when not yet known)."""
        found = self._found.get(key(d))
        if found is not None:
            return found
        with self._lock:
            found = self._found.get(key(d))
            if found is None:
                found = self._found[key(d)] = self._compute(d)
        return found

    def offer_all(self, diagnostics: Sequence[Diagnostic]) -> list[Offered]:
        """`offered` of each diagnostic."""
        return [self.offered(d) for d in diagnostics]

    def _compute(self, d: Diagnostic) -> Offered:
        if d.severity is Severity.INFO or d.facts is None:
            return Offered(d, None)  # as `offer` leaves them
        target = next((h for h in self.version.hazards if key(h) == key(d)), None)
        if target is None:
            return Offered(replace(d, fix=None), None)
        found = self.checker.first_passing_by_unit(self.version, target)
        if found is None and not self.checker.unsafe:
            found = replace(self.checker, unsafe=True).first_passing_by_unit(self.version, target)
        if found is None:
            return self._across(d, target)
        candidate, new_version, new_line, _ = found
        new_text = new_version.source
        fix = candidate.fix(new_line)
        if self._describe is not None:
            fix = replace(fix, description=self._describe(fix.description))
        return Offered(replace(d, fix=fix), new_text)

    def _across(self, d: Diagnostic, target: Diagnostic) -> Offered:
        """A call's diagnostic with the fix `fix` makes at its writes in other files (as they are on disk), the
        texts it makes there; no fix when none passes, or in a notebook."""
        if is_notebook(self.path) or target.facts is None or not target.facts.remotes:
            return Offered(replace(d, fix=None), None)
        from fixinplace.fix.remote import offer_across  # deferred: the fix stage (LibCST), not loaded at start

        across = offer_across(self.text, self.path, target, self.settings)
        if across is None:
            return Offered(replace(d, fix=None), None)
        fix, texts = across
        return Offered(replace(d, fix=fix), None, tuple((path, old, new) for path, (old, new) in texts.items()))

