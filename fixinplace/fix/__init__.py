"""The fix stage: which rewrites fix each hazard, each one checked by the analysis before it is kept, and the
files rewritten without damage.

    candidates.py   the planner: ordered candidate rewrites per diagnostic (codemods from `codemods/`)
    checked.py      apply a candidate, analyse again, keep it only when its hazard is gone and nothing new
                    appeared; `fix_text` (every fix, to a fixpoint), `offer` (the fix each diagnostic gets)
    units.py        a rewrite made on the top-level definitions it touches alone
    files.py        read, rewrite, diff and replace files without damage
    notebooks.py    the same for a notebook's cells
    remote.py       a hazard reported at a call repaired at its write, in the other file of the run that holds it
    run.py          `fixinplace fix` over files and notebooks (`run_fix`), and the counts settled across files

`fixinplace fix`, `fixinplace verify`, the language server and `trace` all go through `fix_text`, `offer` and
`apply_offered`; the check stage (`fixinplace.engine`) never imports this package.
"""

from __future__ import annotations

from fixinplace.fix.checked import FixResult, FixStopped, apply_offered, fix_text, offer

__all__ = ["FixResult", "FixStopped", "apply_offered", "fix_text", "offer"]
