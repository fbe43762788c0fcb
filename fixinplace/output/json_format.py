"""`--format json`: the public contract other tools rely on.

One JSON object, exactly::

    {"diagnostics": [{"path": str, "line": int, "column": int, "end_line": int, "end_column": int,
                      "code": str, "severity": "error"|"warning"|"info", "message": str,
                      "fix": null | {"applicability": "safe"|"unsafe", "description": str}}],
     "errors": [{"path": str, "message": str}]}

Lines and columns are 1-based; `line` is the line of the in-place write. A diagnostic in a Jupyter notebook also
has `"cell": int` (1-based, among all the notebook's cells), and its lines are lines of that cell.
"""

from __future__ import annotations

import json

from fixinplace.engine import Report


def as_object(report: Report) -> dict:
    """The JSON object (before serialisation)."""
    return {
        "diagnostics": [d.to_json() for d in report.diagnostics],
        "errors": [e.to_json() for e in report.errors],
    }


def render(report: Report) -> str:
    return json.dumps(as_object(report), indent=2, ensure_ascii=False) + "\n"
