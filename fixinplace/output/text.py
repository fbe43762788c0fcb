"""`--format text` (the default), like ruff's full output::

    fixtures/check/exp_saved.py:5:1: FIP101 [error] `uexp` was saved by `exp` at line 3 (...)
      |
    5 | uexp[0] = 666
      | ^^^^^^^
      = note: fixtures/check/exp_saved.py:3:8: saved here by `exp`

    Found 1 error, 0 warnings in 1 file.

Files that could not be checked print one line each, `path: error: reason`. With `quiet`, only the first line of
each diagnostic and the error lines are printed. Colour (ANSI) only when asked for (the CLI asks on a TTY).
"""

from __future__ import annotations

from fixinplace.diagnostics import Diagnostic, Severity, printable_path
from fixinplace.engine import Report
from fixinplace.lines import line_texts

_RESET = "\x1b[0m"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"
_CYAN = "\x1b[36m"
_SEVERITY_COLOR = {Severity.ERROR: "\x1b[1;31m", Severity.WARNING: "\x1b[1;33m", Severity.INFO: "\x1b[1;34m"}
_TAB = 4


class _Style:
    def __init__(self, color: bool):
        self.color = color

    def __call__(self, text: str, code: str) -> str:
        return f"{code}{text}{_RESET}" if self.color and text else text


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _display_width_prefix(line: str, column: int) -> tuple[str, int]:
    """The line with tabs expanded, and the display offset of 1-based character `column`."""
    shown = line.expandtabs(_TAB)
    prefix = line[: max(column - 1, 0)].expandtabs(_TAB)
    return shown, len(prefix)


def header(d: Diagnostic, style: _Style) -> str:
    sev = d.severity
    return (
        f"{style(printable_path(d.path), _BOLD)}:{d.line}:{d.column}: {style(d.code, _SEVERITY_COLOR[sev])} "
        f"[{style(sev.value, _SEVERITY_COLOR[sev])}] {d.message}"
    )


def snippet(d: Diagnostic, lines: list[str] | None, style: _Style) -> list[str]:
    """The source line of the write, a caret underline under the written expression, and related locations."""
    out: list[str] = []
    if lines is not None and 1 <= d.line <= len(lines):
        source_line = lines[d.line - 1]
        shown, start = _display_width_prefix(source_line, d.column)
        if d.end_line == d.line and d.end_column > d.column:
            end = len(source_line[: d.end_column - 1].expandtabs(_TAB))
        else:  # a multi-line span: underline to the end of the first line
            end = len(shown.rstrip())
        width = max(end - start, 1)
        gutter = " " * len(str(d.line))
        out.append(style(f"{gutter} |", _CYAN))
        out.append(f"{style(f'{d.line} |', _CYAN)} {shown.rstrip()}")
        out.append(f"{style(f'{gutter} |', _CYAN)} {' ' * start}{style('^' * width, _SEVERITY_COLOR[d.severity])}")
        if d.related:
            out.append(style(f"{gutter} |", _CYAN))
        indent = gutter
    else:
        indent = " "
    for r in d.related:
        out.append(f"{indent} {style('= note:', _BOLD)} {printable_path(d.path)}:{r.line}:{r.column}: {r.message}")
    return out


def summary(report: Report) -> str:
    counts = {sev: 0 for sev in Severity}
    for d in report.diagnostics:
        counts[d.severity] += 1
    files = len({d.path for d in report.diagnostics})
    lines = []
    if report.diagnostics:
        parts = [_plural(counts[Severity.ERROR], "error"), _plural(counts[Severity.WARNING], "warning")]
        if counts[Severity.INFO]:
            parts.append(_plural(counts[Severity.INFO], "info"))
        lines.append(f"Found {', '.join(parts)} in {_plural(files, 'file')}.")
    elif not report.errors:
        lines.append("All checks passed!")
    else:
        lines.append("No diagnostics in the files that could be checked.")
    if report.errors:
        lines.append(f"{_plural(len(report.errors), 'path')} could not be checked (see the errors above).")
    return "\n".join(lines)


def render(report: Report, *, color: bool = False, quiet: bool = False) -> str:
    style = _Style(color)
    out: list[str] = []
    split_cache: dict[str, list[str]] = {}
    for d in report.diagnostics:
        out.append(header(d, style))
        if quiet:
            continue
        if d.path not in split_cache:
            text = report.sources.get(d.path)
            split_cache[d.path] = line_texts(text) if text is not None else None  # type: ignore[assignment]
        out.extend(snippet(d, split_cache[d.path], style))
        out.append("")
    for e in report.errors:
        out.append(f"{style(printable_path(e.path), _BOLD)}: {style('error', _SEVERITY_COLOR[Severity.ERROR])}: {e.message}")
    if not quiet:
        if report.errors:
            out.append("")
        out.append(style(summary(report), _BOLD))
    return "".join(line + "\n" for line in out)
