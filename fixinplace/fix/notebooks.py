"""`fixinplace fix` on a Jupyter notebook: its code cells are joined (`fixinplace.notebook.join_cells`), fixed
as one text by `fix_text` (each fix checked by analysing the joined text again, as for a `.py` file), and the new
text is split back into cells. The notebook is written back with only the changed cells' `source` changed, in
the file's own JSON layout.

The patch shows one unified diff per changed cell, its headers naming the cell as Ruff's `--diff` does
(`--- a/train.ipynb:cell 4`, `+++ b/train.ipynb:cell 4`; cells numbered from 1 among all the notebook's cells):
it is for reading, not for `git apply` (which would need a diff of the JSON). `--apply` replaces the file
atomically (`files.write_patch`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from fixinplace.engine import SourceError, read_source_bytes
from fixinplace.fix.checked import fix_text, offer
from fixinplace.fix.files import (FileOutcome, FilePatch, PatchError, SourceFile, display_path,
                                  dominant_newline, guarded_outcome, normalize_newlines, unified_diff, validate_diff,
                                  write_if_changed)
from fixinplace.notebook import (CellSplitError, Notebook, NotebookError, decode_notebook, join_cells,
                                 parse_notebook, syntax_error, to_cells)
from fixinplace.settings import Settings


def read_notebook(path: str, max_size: int | None = None) -> tuple[SourceFile, Notebook]:
    """A notebook file as read for fixing (its JSON text as the `SourceFile` text) and the notebook itself;
    problems raise `SourceError`."""
    data = read_source_bytes(path, max_size)
    try:
        text = decode_notebook(data)
        notebook = parse_notebook(text)
    except NotebookError as e:
        raise SourceError(str(e)) from None
    return SourceFile(path=path, target=os.path.realpath(path), data=data, text=text, encoding="utf-8"), notebook


def cell_diff(old: str, new: str, shown_path: str, cell: int) -> str:
    """The unified diff of one cell's source, its headers naming the cell; validated like a file's diff."""
    name = f"{shown_path}:cell {cell}"
    diff = unified_diff(old, new, name)
    validate_diff(diff, old, new, name)
    return diff


def notebook_patch(source: SourceFile, notebook: Notebook, sources: list[str], cwd: str | None = None) -> FilePatch:
    """The patch giving the notebook's code cells these sources (each cell's added lines get its own newline)."""
    shown = display_path(source.path, cwd)
    old_sources = notebook.code_sources()
    sources = [normalize_newlines(old, new, dominant_newline(old)) if new != old else new
               for old, new in zip(old_sources, sources)]
    new_text = notebook.with_sources(sources)
    if new_text == source.text:
        return FilePatch(source, source.text, source.data, "", shown)
    diff = "".join(cell_diff(old, new, shown, notebook.cell_number(i))
                   for i, (old, new) in enumerate(zip(old_sources, sources)) if new != old)
    return FilePatch(source, new_text, new_text.encode("utf-8"), diff, shown)


@dataclass
class NotebookFix:
    """What fixing a notebook's code cells produced: each code cell's new source, and the hazards (placed in
    their cells) fixed and left."""

    sources: list[str]
    applied: list = field(default_factory=list)
    remaining: list = field(default_factory=list)


def fix_cells(notebook: Notebook, path: str, settings: Settings) -> NotebookFix:
    """Every checked fix of the notebook's code cells, joined and fixed as one text. Raises `SourceError` (a cell
    that does not parse) or `PatchError` (a fix that cannot be split back into cells)."""
    joined = notebook.join()
    numbers = notebook.code_cell_numbers()
    broken = syntax_error(joined, numbers)
    if broken:
        raise SourceError(broken)
    result = fix_text(joined.text, path, settings, admissible=joined.admits)
    if result.unparsable:
        raise PatchError(f"cannot rewrite this notebook: LibCST cannot parse its cells, though Python can "
                         f"({result.unparsable})")
    try:
        sources = joined.split(result.source)
    except CellSplitError as e:
        raise PatchError(f"cannot fix: {e}") from None
    fixed = join_cells(sources)
    broken = syntax_error(fixed, numbers)
    if broken:
        raise PatchError(f"internal error: a fixed cell does not parse ({broken})")
    remaining = list(result.remaining)
    if remaining and not settings.unsafe_fixes:
        # what `--unsafe-fixes` would still do
        remaining = offer(result.source, path, remaining, settings, admissible=join_cells(sources).admits)
    return NotebookFix(sources, to_cells(result.applied, joined, numbers), to_cells(remaining, fixed, numbers))


def fix_notebook(path: str, settings: Settings, *, apply: bool = False, cwd: str | None = None) -> FileOutcome:
    """Fix one notebook (without `apply`: only compute the patch); problems become the outcome's one-line
    `error` and leave the file as it is. Diagnostics are placed in their cells (`Diagnostic.cell`)."""
    def work(outcome: FileOutcome) -> None:
        source, notebook = read_notebook(path, settings.max_file_size)
        fixed = fix_cells(notebook, path, settings)
        outcome.applied, outcome.remaining = fixed.applied, fixed.remaining
        write_if_changed(outcome, notebook_patch(source, notebook, fixed.sources, cwd), apply)

    return guarded_outcome(path, work)
