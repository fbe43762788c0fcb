"""Where in the user's program a torch call happened: the innermost frame that is not torch's or the tracer's."""

from __future__ import annotations

import linecache
import os
import sys
from dataclasses import dataclass
from typing import Optional, Tuple

from fixinplace.trace.notebooks import cell_of

# Frames in these folders or files are never the user's line (torch itself, this tracer, the runner's plumbing).
_TRACE_DIR = os.path.dirname(os.path.abspath(__file__))
_STDLIB_PLUMBING = ("runpy.py", "contextlib.py")
_internal: dict = {}  # co_filename -> bool, filled lazily
_prefixes: Tuple[str, ...] = (_TRACE_DIR + os.sep,)


def add_internal_dir(path: str) -> None:
    """Treat every file under `path` as internal (not the user's code): called with torch's folder at start."""
    global _prefixes
    prefix = os.path.abspath(path) + os.sep
    if prefix not in _prefixes:
        _prefixes = _prefixes + (prefix,)
        _internal.clear()


def _is_internal(filename: str) -> bool:
    if filename.startswith("<"):  # "<frozen runpy>" and the like; "<string>" and "<stdin>" are the user's
        return filename.startswith("<frozen")
    return filename.endswith(_STDLIB_PLUMBING) or os.path.abspath(filename).startswith(_prefixes)


def user_frame(depth: int = 2) -> Optional[Tuple[str, int]]:
    """(filename, line) of the innermost caller frame outside torch and the tracer, or None."""
    try:
        frame = sys._getframe(depth)
    except ValueError:
        # A stack shallower than `depth`: the autograd engine's own threads (the backward of CUDA tensors) call
        # hooks from a short stack with no user frame on it.
        return None
    internal = _internal
    while frame is not None:
        filename = frame.f_code.co_filename
        skip = internal.get(filename)
        if skip is None:
            skip = internal[filename] = _is_internal(filename)
        if not skip:
            return filename, frame.f_lineno
        frame = frame.f_back
    return None


def shown_path(filename: str) -> str:
    """A path as the report shows it: relative to the working folder when inside it, with forward slashes."""
    if filename.startswith("<"):
        return filename
    absolute = os.path.abspath(filename)
    try:
        rel = os.path.relpath(absolute)
    except ValueError:  # another drive (Windows)
        rel = absolute
    shown = absolute if rel.startswith("..") else rel
    return shown.replace(os.sep, "/")


@dataclass(frozen=True)
class Site:
    """A statement of the user's program: file, line, its source text, and the torch op called there (if any)."""

    filename: str
    line: int
    op: Optional[str] = None

    @property
    def path(self) -> str:
        """The file as the report shows it."""
        return shown_path(self.filename)

    @property
    def source(self) -> str:
        """The line's source text, stripped ("" when the file cannot be read)."""
        return linecache.getline(self.filename, self.line).strip()

    @property
    def cell(self) -> Optional[tuple[int, int]]:
        """(cell, line in the cell) when the line is in a notebook being traced, else None."""
        return cell_of(self.filename, self.line)

    @property
    def where(self) -> str:
        """`path:line`, or `path:cell N:line` in a notebook (as `check` names a cell's line)."""
        cell = self.cell
        return f"{self.path}:{self.line}" if cell is None else f"{self.path}:cell {cell[0]}:{cell[1]}"

    @property
    def shown_line(self) -> int:
        """The line as the report numbers it: in its cell for a notebook."""
        cell = self.cell
        return self.line if cell is None else cell[1]

    def to_json(self, with_op: bool = True) -> dict:
        """{"path", "line", "source", "op"} (without "source" and "op" when `with_op` is false); a notebook's line
        also has "cell", "line" then counting in that cell."""
        cell = self.cell
        out: dict = {"path": self.path, "line": self.line} if cell is None else {
            "path": self.path, "cell": cell[0], "line": cell[1]}
        if with_op:
            out["source"] = self.source
            out["op"] = self.op
        return out


def site_of(frame: Optional[Tuple[str, int]], op: Optional[str] = None) -> Optional[Site]:
    """A `Site` from `user_frame()`'s answer (None stays None)."""
    return None if frame is None else Site(frame[0], frame[1], op)
