"""`fixinplace verify` on a Jupyter notebook: its code cells joined (`fixinplace.notebook.join_cells`, IPython
syntax masked as `pass`) are the module the child runs, before and after the fixes; the results' lines are then
placed in their cells (`cell`, 1-based among all the notebook's cells, and the line in that cell).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from fixinplace.engine import SourceError, read_source_bytes
from fixinplace.notebook import JoinedCells, NotebookError, decode_notebook, parse_notebook, syntax_error


@dataclass(frozen=True)
class NotebookCode:
    """A notebook's joined code cells, and the notebook number of each code cell."""

    joined: JoinedCells
    numbers: tuple[int, ...]

    @property
    def text(self) -> str:
        """The module the child runs."""
        return self.joined.text

    def place(self, line: int) -> tuple[int, int]:
        """The (cell number, line in the cell) of a line of `text`."""
        cell, in_cell = self.joined.cell_position(line)
        return (self.numbers[cell] if self.numbers else 1), in_cell


def notebook_code(path: str, max_size: int | None = None) -> NotebookCode:
    """The joined code cells of the notebook at `path`; `SourceError` (one line) when it cannot be read or a cell
    does not parse."""
    try:
        notebook = parse_notebook(decode_notebook(read_source_bytes(path, max_size)))
    except NotebookError as e:
        raise SourceError(str(e)) from None
    code = NotebookCode(notebook.join(), tuple(notebook.code_cell_numbers()))
    broken = syntax_error(code.joined, code.numbers)
    if broken:
        raise SourceError(broken)
    return code


def place_results(results: Sequence[dict], path: str, code: NotebookCode) -> None:
    """Give the results of `path` (rows of `VerifyReport.results`) their cell: `cell` and `line` in it, for the
    result and each of its fixes."""
    for row in results:
        if row["path"] != path:
            continue
        row["cell"], row["line"] = code.place(row["line"])
        for fix in row.get("fixes", ()):
            fix["cell"], fix["line"] = code.place(fix["line"])
