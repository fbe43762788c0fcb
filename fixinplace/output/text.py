"""`--format text` (the default), like ruff's full output::

    fixtures/check/exp_saved.py:5:1: FIP101 [error] [*] `uexp` was saved by `exp` at line 3 (...)
      |
    5 | uexp[0] = 666
      | ^^^^^^^
      = note: fixtures/check/exp_saved.py:3:8: saved here by `exp`

    Found 1 error, 0 warnings in 1 file.
    [*] 1 fixable with `fixinplace fix --apply`.

`[*]` marks the diagnostics that `fixinplace fix --apply` fixes (as Ruff marks them): those whose fix
(`Diagnostic.fix`, set by `fixinplace.fixable.offer_fixes` from what `fix` does to the file: one fix often clears
several diagnostics) is safe, or unsafe when unsafe fixes are on; the last line counts them, and the ones that
only `--unsafe-fixes` would clear. Diagnostics without a fix are not marked and not counted. Files that could not be checked print one line each, `path: error: reason`. With `quiet`, only the first
line of each diagnostic and the error lines are printed; with `show_fixes`, each fix's description follows its
diagnostic (`= help: ...`). Colour (ANSI) only when asked for (the CLI asks on a TTY).
"""

from __future__ import annotations

import os

from fixinplace.diagnostics import Applicability, Diagnostic, Severity, location, position, printable_path
from fixinplace.engine import Report
from fixinplace.lines import line_texts
from fixinplace.notebook import cell_lines

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


def fixable(d: Diagnostic, unsafe_fixes: bool = False) -> bool:
    """Whether `fixinplace fix --apply` (with `--unsafe-fixes` when `unsafe_fixes`) fixes this diagnostic."""
    return d.fix is not None and (d.fix.applicability == Applicability.SAFE or unsafe_fixes)


def header(d: Diagnostic, style: _Style, unsafe_fixes: bool = False) -> str:
    sev = d.severity
    mark = f" {style('[*]', _CYAN)}" if fixable(d, unsafe_fixes) else ""
    return (
        f"{style(printable_path(d.path), _BOLD)}:{position(d.line, d.column, d.cell)}: "
        f"{style(d.code, _SEVERITY_COLOR[sev])} "
        f"[{style(sev.value, _SEVERITY_COLOR[sev])}]{mark} {d.message}"
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
        out.append(f"{indent} {style('= note:', _BOLD)} {location(d.path, r.line, r.column, r.cell)}: {r.message}")
    return out


def fix_summary(report: Report, unsafe_fixes: bool = False) -> str | None:
    """`N fixable with `fixinplace fix --apply` (M more with `--unsafe-fixes`).`, or None when nothing is."""
    safe = sum(1 for d in report.diagnostics if fixable(d, unsafe_fixes))
    more = sum(1 for d in report.diagnostics if d.fix is not None and not fixable(d, unsafe_fixes))
    if not safe and not more:
        return None
    line = f"{'[*] ' if safe else ''}{safe} fixable with `fixinplace fix --apply`"
    if more:
        line += f" ({more} more with `--unsafe-fixes`)"
    calls, outside = outside_files(report)
    if outside:
        names = ", ".join(outside[:3]) + (f" and {len(outside) - 3} more" if len(outside) > 3 else "")
        one = len(outside) == 1
        line += (f"; {calls} of these {'is a fix' if calls == 1 else 'are fixes'} of a call made in {names}, which "
                 f"this check was not given (`fix` writes only the files it is given: give it "
                 f"{'that file' if one else 'those files'} too)")
    return line + "."


def outside_files(report: Report) -> tuple[int, list[str]]:
    """How many diagnostics have a fix that rewrites a file the report did not check (a call's hazard repaired at
    its write), and those files as `fix` would be given them (relative to the working folder when below it)."""
    checked = {os.path.realpath(path) for path in report.files}
    calls, out = 0, {}
    for d in report.diagnostics:
        elsewhere = [p for p in (d.fix.made_in if d.fix is not None else ()) if os.path.realpath(p) not in checked]
        calls += bool(elsewhere)
        for path in elsewhere:
            relative = os.path.relpath(path)
            out[path if relative.startswith("..") else relative] = None
    return calls, list(out)


def help_line(d: Diagnostic, style: _Style, indent: str = " ") -> str | None:
    """`= help: <the fix's description> (safe|unsafe fix)` for a diagnostic with a fix."""
    if d.fix is None:
        return None
    kind = "" if f"({d.fix.applicability}" in d.fix.description else f" ({d.fix.applicability} fix)"
    return f"{indent} {style('= help:', _BOLD)} {d.fix.description}{kind}"


def by_code(report: Report) -> list[tuple[str, list[Diagnostic]]]:
    """The report's diagnostics grouped by code, the most frequent code first (then by code), for `--statistics`."""
    counts: dict[str, list[Diagnostic]] = {}
    for d in report.diagnostics:
        counts.setdefault(d.code, []).append(d)
    return sorted(counts.items(), key=lambda item: (-len(item[1]), item[0]))


def statistics(report: Report, unsafe_fixes: bool = False) -> str:
    """Ruff's `--statistics`: one line per code, most frequent first: count, code, [*] when every one is
    fixable, the rule's name; then the errors, and the totals that the report without --statistics ends with
    (`summary`: `Found ...`, `[*] N fixable ...`)."""
    from fixinplace.rules import RULES_BY_CODE  # deferred: the rule table, which a clean check never loads

    rows = by_code(report)
    width = max((len(str(len(ds))) for _, ds in rows), default=1)
    out = []
    for code, ds in rows:
        rule = RULES_BY_CODE.get(code)
        mark = "[*]" if all(fixable(d, unsafe_fixes) for d in ds) else "[-]" if any(fixable(d, unsafe_fixes) for d in ds) else "[ ]"
        out.append(f"{len(ds):>{width}}\t{code}\t{mark} {rule.name if rule else ''}".rstrip())
    for e in report.errors:
        out.append(f"{printable_path(e.path)}: error: {e.message}")
    out.append(summary(report, unsafe_fixes))
    return "".join(line + "\n" for line in out)


def summary(report: Report, unsafe_fixes: bool = False) -> str:
    """The totals a text report ends with (also after `--statistics`): what was found, what could not be
    checked, and what `fix --apply` fixes."""
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
    fixes = fix_summary(report, unsafe_fixes)
    if fixes is not None:
        lines.append(fixes)
    return "\n".join(lines)


def _source_lines(text: str | None, cell: int | None) -> list[str] | None:
    """The lines a diagnostic's line counts in: the file's, or those of a notebook's cell (`text`: its JSON)."""
    if text is None:
        return None
    if cell is None:
        return line_texts(text)
    return cell_lines(text, cell)


def render(report: Report, *, color: bool = False, quiet: bool = False, show_fixes: bool = False,
           unsafe_fixes: bool = False) -> str:
    """The text report: each diagnostic (header, source line, notes, fix with `show_fixes`), errors, summary."""
    style = _Style(color)
    out: list[str] = []
    split_cache: dict[str, list[str]] = {}
    for d in report.diagnostics:
        out.append(header(d, style, unsafe_fixes))
        if quiet:
            continue
        key = d.path if d.cell is None else f"{d.path}\0{d.cell}"
        if key not in split_cache:
            text = report.sources.get(d.path)
            split_cache[key] = _source_lines(text, d.cell)  # type: ignore[assignment]
        out.extend(snippet(d, split_cache[key], style))
        if show_fixes:
            indent = " " * len(str(d.line)) if split_cache[key] is not None else " "
            help_text = help_line(d, style, indent)
            if help_text is not None:
                out.append(help_text)
        out.append("")
    for e in report.errors:
        out.append(f"{style(printable_path(e.path), _BOLD)}: {style('error', _SEVERITY_COLOR[Severity.ERROR])}: {e.message}")
    if not quiet:
        if report.errors:
            out.append("")
        out.append(style(summary(report, unsafe_fixes), _BOLD))
    return "".join(line + "\n" for line in out)
