"""Which diagnostics `fixinplace fix --apply` clears, for the reports of `check` (`[*]` in text, `fix` in json and
sarif).

`offer_fixes` is the `engine.Refine` that `check` passes to `run_check`: it imports the fix stage (LibCST) only
when a file has an error or a warning to find a fix for, so a check of clean files never loads it. It is a
module-level function so that worker processes can run it, and one function for every format so that they share
cached results.

A diagnostic's `fix` says what `fix --apply` does to it, found by running the fixes as `fix` runs them (all of
them, in order, to a fixpoint: `fixinplace.fix.fix_text`) and seeing which diagnostics the fixed text no longer
has. One fix often clears several diagnostics (a clone where a tensor is made clears every write of it; a write
made out of place clears the writes after it), and a fix offered for one diagnostic alone may not be the one `fix`
ends up making, so the fixes offered one diagnostic at a time would not count what `fix` does:

- a diagnostic that `fix --apply` clears gets a fix of its configured applicability: its own fix when `fix`
  applies one to it, else a fix that says which fix clears it;
- without unsafe fixes, one that only `fix --apply --unsafe-fixes` clears gets an unsafe fix (the same way);
- one that neither clears gets no fix.

So `[*]` (`output.text.fixable`) marks exactly the diagnostics `fix --apply` clears, and the count of the marks is
what `fix --apply` says it fixed. `check` does this one file at a time: a fix in one file that clears diagnostics of
another (a helper whose write is reported at each call in the files that import it) counts in the helper's file
only; `fix` itself counts every file (`fixinplace.fix.run.settle`). A call's diagnostic whose writes are in other
files gets the fix `fix` makes at those writes when their files are in its run (`fixinplace.fix.remote`); its
description names the file it rewrites.
"""

from __future__ import annotations

from dataclasses import replace

from fixinplace.diagnostics import Applicability, Fix, blocking


def offer_fixes(text: str, path: str, diagnostics: list, settings, admissible=None) -> list:
    """`diagnostics` (of `text`) with each error's and warning's fix set to what `fix --apply` does to it (see the
    module's docstring); `admissible`: which rewritten texts may be made, for a notebook's joined cells."""
    hazards = blocking(diagnostics)
    if not hazards:
        return diagnostics
    cleared = cleared_by_fix(text, path, hazards, settings, admissible)
    more: dict = {}
    if not settings.unsafe_fixes and len(cleared) < len(hazards):
        more = cleared_by_fix(text, path, hazards, replace(settings, unsafe_fixes=True), admissible)
    if admissible is None:
        # A call's hazard whose writes are in other files: what `fix` does when those files are fixed with this one.
        from fixinplace.fix.remote import offer_across  # deferred: the fix stage (LibCST), only for a file with hazards

        for d in hazards:
            if id(d) not in cleared and d.facts is not None and d.facts.remotes:
                across = offer_across(text, path, d, settings, or_unsafe=id(d) not in more)
                if across is None:
                    continue
                if settings.unsafe_fixes or across[0].applicability == Applicability.SAFE:
                    cleared[id(d)] = across[0]
                else:
                    more[id(d)] = across[0]  # only `--unsafe-fixes` would make it
    blocking_ids = {id(d) for d in hazards}
    out = []
    for d in diagnostics:
        if id(d) not in blocking_ids:
            out.append(d)
        elif id(d) in cleared:
            out.append(replace(d, fix=cleared[id(d)]))
        elif id(d) in more:
            fix = more[id(d)]
            out.append(replace(d, fix=fix if fix.applicability == Applicability.UNSAFE
                               else replace(fix, applicability=Applicability.UNSAFE)))
        else:
            out.append(replace(d, fix=None))
    return out


def cleared_by_fix(text: str, path: str, hazards: list, settings, admissible=None) -> dict:
    """Which of `hazards` (errors and warnings of `text`) `fixinplace fix --apply` with these settings clears, as
    {id(diagnostic): the fix that clears it}: the fix `fix` applies to it, else one naming the fix that clears it
    along the way."""
    from fixinplace.fix import fix_text  # deferred: the fix stage (LibCST), only for a file with errors or warnings
    from fixinplace.fix.checked import Version, accepts  # deferred: the fix stage (LibCST), as above

    result = fix_text(text, path, settings, admissible=admissible)
    if not result.applied:
        return {}
    own = {_key(d): d.fix for d in result.applied if d.fix is not None}
    # Each hazard left in the fixed text continues one of `text` (fixes never add one): those are not cleared.
    continued = accepts(Version(text, list(hazards)), result.source, list(result.remaining))
    if continued is None:  # a remaining hazard that cannot be placed: count only the hazards fixed directly
        left = {id(d) for d in hazards if _key(d) not in own}
    else:
        left = {id(d) for d in continued.values()}
    applied = [d for d in result.applied if d.fix is not None]
    if len(applied) == 1:
        other = applied[0].fix
        # (A notebook's lines are those of its joined cells here: not shown.)
        where = "another write" if admissible is not None else f"the write at line {applied[0].line}"
        along = Fix(other.applicability, f"Fixed by the fix of {where}: {other.description}", other.strategy)
    else:
        unsafe = any(d.fix.applicability == Applicability.UNSAFE for d in applied)
        along = Fix(Applicability.of(not unsafe), f"Fixed by the other {len(applied)} fixes `fixinplace fix` "
                    f"makes in this file" + ("" if admissible is not None else
                    f" (lines {', '.join(str(d.line) for d in applied)})"))
    return {id(d): own.get(_key(d), along) for d in hazards if id(d) not in left}


def _key(d) -> tuple:
    """What identifies a hazard of the original text: where it is, its code and its message."""
    return d.line, d.column, d.code, d.message
