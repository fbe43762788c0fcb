"""Rendering a verification report: JSON (the contract) or a rich table with one row per function and device."""

from __future__ import annotations

import io
import json


def render_json(report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def _diff(x: float) -> str:
    return "0" if x == 0 else f"{x:.2g}"


def render_text(report, color: bool = False) -> str:
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=color, no_color=not color, width=160, soft_wrap=False)
    if report.results:
        table = Table(show_lines=False, highlight=False)
        for column in ("path", "function", "line", "device", "status", "reference", "max |diff| out", "max |diff| grad",
                       "reason"):
            table.add_column(column, overflow="fold")
        styles = {"verified": "green", "failed": "bold red", "skipped": "yellow", "changed": "cyan"}
        for r in report.results:
            table.add_row(
                r["path"], r["function"], str(r["line"]), r["device"],
                f"[{styles[r['status']]}]{r['status']}[/]", r["reference"],
                _diff(r["max_abs_diff"]["outputs"]), _diff(r["max_abs_diff"]["grads"]), r["reason"],
            )
        console.print(table)
    counts = {s: sum(1 for r in report.results if r["status"] == s)
              for s in ("verified", "changed", "failed", "skipped")}
    changed = f"{counts['changed']} changed on purpose, " if counts["changed"] else ""
    console.print(f"{counts['verified']} verified, {changed}{counts['failed']} failed, {counts['skipped']} skipped.",
                  highlight=False)
    return buffer.getvalue()
