"""Which diagnostics have a checked fix, for the reports of `check` (`[*]` in text, `fix` in json and sarif).

`offer_fixes` is the `engine.Refine` that `check` passes to `run_check`: it imports the fix stage (LibCST) only
when a file has an error or a warning to find a fix for, so a check of clean files never loads it. It is a
module-level function so that worker processes can run it, and one function for every format so that they share
cached results.
"""

from __future__ import annotations


def offer_fixes(text: str, path: str, diagnostics: list, settings, admissible=None) -> list:
    """`diagnostics` with each error's and warning's fix set (see `fixinplace.fix.offer`; `admissible`: which
    rewritten texts may be made, for a notebook's joined cells)."""
    from fixinplace.diagnostics import blocking

    if not blocking(diagnostics):
        return diagnostics
    from fixinplace.fix import offer

    return offer(text, path, diagnostics, settings, admissible=admissible)
