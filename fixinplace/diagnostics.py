"""The data every front end (CLI formats, LSP, fix) shares: diagnostics, fixes, per-file results."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable
from enum import Enum

from fixinplace.facts import TextEnum, WriteFacts


class Severity(str, Enum):
    """How sure the analysis is that the write breaks autograd."""

    ERROR = "error"  # under the analysis' model the code will raise (or silently corrupt a gradient)
    WARNING = "warning"  # hazardous depending on what the analysis cannot see
    INFO = "info"  # safe but noteworthy in-place write (off by default)

    @property
    def rank(self) -> int:
        """Higher is more severe."""
        return {"info": 0, "warning": 1, "error": 2}[self.value]


class Applicability(TextEnum):
    """Whether `fixinplace fix` applies a fix by itself."""

    SAFE = "safe"  # keeps what the code computes: applied by `fix --apply`
    UNSAFE = "unsafe"  # may change it (review it): applied only with `--unsafe-fixes`

    @classmethod
    def of(cls, safe: bool) -> "Applicability":
        """SAFE when `safe`, else UNSAFE."""
        return cls.SAFE if safe else cls.UNSAFE


@dataclass(frozen=True)
class Fix:
    """A rewrite offered for a diagnostic (filled by the fix machinery)."""

    applicability: Applicability
    description: str
    strategy: str = ""  # the codemod that performs it (its module name in `codemods/`)
    # The other files it rewrites (a call's hazard repaired at its write: `fixinplace.fix.remote`), as opened.
    made_in: tuple = ()
    # The checked rewrite itself (a `fixinplace.fix.candidates.Candidate`), to apply it again: not compared,
    # not serialised.
    candidate: object = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        # A caller may name the applicability by its text ("safe"): the record always holds the member.
        object.__setattr__(self, "applicability", Applicability(self.applicability))

    def to_json(self) -> dict:
        """The public JSON form: applicability and description only."""
        return {"applicability": self.applicability, "description": self.description}


@dataclass(frozen=True, slots=True)
class Related:
    """A secondary location, e.g. the line of the op that saved the tensor."""

    line: int
    column: int
    message: str
    cell: int | None = None  # in a notebook: the cell (1-based, among all its cells) that `line` counts in


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One hazard at one in-place write. Lines and columns are 1-based; columns count characters."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    code: str
    severity: Severity
    message: str
    fix: Fix | None = None
    related: tuple[Related, ...] = ()
    facts: WriteFacts | None = None  # what the analysis knows about the write (for the fix stage)
    # In a notebook: the cell (1-based, among all its cells, as Ruff counts them); `line` and `end_line` are then
    # lines of that cell.
    cell: int | None = None
    # The one device the hazard exists on ("cuda": a cuDNN kernel saves what the CPU's does not), else None.
    device: str | None = None

    def to_json(self) -> dict:
        """The public JSON form (contract of `check --format json`); `cell` only for a notebook's diagnostic."""
        return {
            "path": self.path,
            **({"cell": self.cell} if self.cell is not None else {}),
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "code": self.code,
            "severity": self.severity.value,
            "message": self.message,
            "fix": self.fix.to_json() if self.fix else None,
        }


def printable_path(path: str) -> str:
    """A path as printed in text output: a line break or another character that cannot be printed (a control
    character, U+2028) is escaped as Python escapes it, so one message stays one line."""
    if path.isprintable():
        return path
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in path)


def position(line: int, column: int, cell: int | None = None) -> str:
    """`line:column`, or `cell N:line:column` for a line of a notebook's cell."""
    return f"cell {cell}:{line}:{column}" if cell is not None else f"{line}:{column}"


def location(path: str, line: int, column: int, cell: int | None = None) -> str:
    """`path:line:column` as printed, or `path:cell N:line:column` for a line of a notebook's cell."""
    return f"{printable_path(path)}:{position(line, column, cell)}"


def blocking(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The errors and warnings among `diagnostics` (what `fix` fixes and what makes `check` exit 1), in order."""
    return [d for d in diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]


def one_line(text: object) -> str:
    """`text` with every run of whitespace (newlines included) made one space: for one-line error messages."""
    return " ".join(str(text).split())


@dataclass(frozen=True)
class FileError:
    """A file that could not be read or parsed, with a one-line reason."""

    path: str
    message: str

    def to_json(self) -> dict:
        """The public JSON form."""
        return {"path": self.path, "message": self.message}


@dataclass
class FileResult:
    """What checking one file produced."""

    path: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: FileError | None = None
