"""Rendering a verification report: JSON (the contract) or text, one line per result with its reason beneath it
(as pytest's short summary), fitted to the terminal's width."""

from __future__ import annotations

import json
import shutil
import textwrap

_STYLES = {"verified": "32", "changed": "36", "failed": "1;31", "skipped": "33"}  # ANSI: green, cyan, red, yellow
MIN_WIDTH = 40


def render_json(report) -> str:
    return json.dumps(report.to_json(), indent=2) + "\n"


def _diff(x: float) -> str:
    return "0" if x == 0 else f"{x:.2g}"


def _of_cell(fix: dict) -> str:
    return f" of cell {fix['cell']}" if fix.get("cell") else ""


def _made_in(fix: dict) -> str:
    """`, made in layers.py`: where a call's fix rewrote another file."""
    return f", made in {', '.join(fix['made_in'])}" if fix.get("made_in") else ""


#: What each reference is, in a user's words (JSON keeps the label: `reference`).
REFERENCE_WORDS = {
    "original": "compared with the original's own result",
    "saved_tensor_copies": "compared with the original's own result when every tensor autograd saved is kept intact",
    "allow_mutation_on_saved_tensors": "compared with the original under torch's allow_mutation_on_saved_tensors",
    "functionalize": "compared with the original made functional (torch.func.functionalize)",
    "finite_differences": "compared with the original's outputs and gradients by finite differences",
}


def render_text(report, color: bool = False, width: int | None = None) -> str:
    """`path:line function [device] STATUS`, then beneath it, indented, `fix CODE at line N (strategy); compared
    with REFERENCE (in words); max |diff| outputs X, gradients Y` and the reason, wrapped to `width` (the terminal's by default);
    the counts last."""
    width = max(width or shutil.get_terminal_size((100, 24)).columns, MIN_WIDTH)
    lines = []
    for r in report.results:
        where = f"cell {r['cell']}:{r['line']}" if r.get("cell") else f"{r['line']}"
        head = textwrap.wrap(f"{r['path']}:{where} {r['function']} [{r['device']}] {r['status']}", width=width,
                             subsequent_indent="    ", break_long_words=True, break_on_hyphens=False)
        if color and r["status"] in _STYLES:  # (colour codes take no columns)
            head[-1] = head[-1][: -len(r["status"])] + f"\x1b[{_STYLES[r['status']]}m{r['status']}\x1b[0m"
        diffs = r["max_abs_diff"]
        fixes = ", ".join(f"{f['code']} at line {f['line']}{_of_cell(f)} ({f['strategy']}{_made_in(f)})"
                          for f in r.get("fixes", ()))
        against = REFERENCE_WORDS.get(r["reference"], f"compared with {r['reference']}")
        details = ((f"fix {fixes}; " if fixes else "") + f"{against}; max |diff| outputs "
                   f"{_diff(diffs['outputs'])}, gradients {_diff(diffs['grads'])}"
                   + (f"; {r['reason']}" if r["reason"] else ""))
        lines += head + textwrap.wrap(details, width=width, initial_indent="    ", subsequent_indent="    ",
                                      break_long_words=True, break_on_hyphens=False)
    counts = {s: sum(1 for r in report.results if r["status"] == s) for s in ("verified", "changed", "failed", "skipped")}
    changed = f"{counts['changed']} changed on purpose, " if counts["changed"] else ""
    lines.append(f"{counts['verified']} verified, {changed}{counts['failed']} failed, {counts['skipped']} skipped.")
    return "\n".join(lines) + "\n"
