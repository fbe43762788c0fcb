"""`fixinplace trace notebook.ipynb`: a notebook's code cells run in order, as Jupyter runs them (IPython syntax
masked, as `check` masks it), and every line the report names given as its cell and line there (`nb.ipynb:cell 4:2`,
as `check` names it)."""

from __future__ import annotations

import linecache
import os
from types import CodeType
from typing import Optional

from fixinplace.engine import SourceError, read_source_bytes
from fixinplace.notebook import JoinedCells, NotebookError, decode_notebook, parse_notebook, syntax_error
from fixinplace.reading import is_notebook

# The notebooks being run: absolute path -> (its joined code cells, each code cell's number among all the cells).
_RUNNING: dict[str, tuple[JoinedCells, list[int]]] = {}


def read_notebook(target: str) -> tuple[JoinedCells, list[int]]:
    """The notebook's code cells joined, and each one's number among all its cells; raises `SourceError` for a file
    that cannot be read or is no notebook."""
    try:
        notebook = parse_notebook(decode_notebook(read_source_bytes(os.path.abspath(target))))
    except NotebookError as e:
        raise SourceError(str(e)) from None
    return notebook.join(), notebook.code_cell_numbers()


def compile_notebook(target: str) -> CodeType:
    """The notebook's code cells joined and compiled under its path; its lines are what tracebacks and the report
    quote. Raises `SyntaxError` naming the cell that does not parse alone (as Jupyter would fail running it), and
    `SourceError` for a file that is no notebook."""
    path = os.path.abspath(target)
    joined, numbers = read_notebook(path)
    broken = syntax_error(joined, numbers)
    if broken:
        raise SyntaxError(broken)
    _RUNNING[path] = (joined, numbers)
    linecache.cache[path] = (len(joined.text), None, list(joined.lines), path)
    return compile(joined.text, path, "exec", dont_inherit=True)


def cell_of(filename: str, line: int) -> Optional[tuple[int, int]]:
    """(cell number, line in that cell) of a line of a notebook being traced; None for a line of another file."""
    found = _RUNNING.get(os.path.abspath(filename)) if is_notebook(filename) else None
    if found is None:
        return None
    joined, numbers = found
    cell, in_cell = joined.cell_position(line)
    return numbers[cell], in_cell
