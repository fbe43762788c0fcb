"""`--format github`: GitHub Actions workflow commands, which the Actions runner shows as annotations.

    ::error file=PATH,line=L,col=C,endLine=EL,endColumn=EC,title=CODE::MESSAGE

`error` diagnostics become `::error`, `warning` ones `::warning`, `info` ones `::notice`. Files that could not be
checked become `::error file=PATH,title=fixinplace::REASON`. In a notebook, `line` is a line of the cell that the
title names (`title=FIP101 (cell 4)`). Values are escaped as the runner expects (`%`, CR,
LF everywhere; `:` and `,` in properties too).
"""

from __future__ import annotations

from fixinplace.diagnostics import Severity
from fixinplace.engine import Report

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render(report: Report) -> str:
    lines = []
    for d in report.diagnostics:
        props = ",".join(
            [
                f"file={escape_property(d.path)}",
                f"line={d.line}",
                f"col={d.column}",
                f"endLine={d.end_line}",
                f"endColumn={d.end_column}",
                f"title={escape_property(d.code if d.cell is None else f'{d.code} (cell {d.cell})')}",
            ]
        )
        lines.append(f"::{_COMMAND[d.severity]} {props}::{escape_data(d.message)}")
    for e in report.errors:
        lines.append(f"::error file={escape_property(e.path)},title=fixinplace::{escape_data(e.message)}")
    return "".join(line + "\n" for line in lines)
