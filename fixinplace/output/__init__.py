"""Report formats of `fixinplace check`: one module per format, each with `render(report, ...) -> str`.

- `text` (default): ruff-like, `path:line:col: CODE [severity] message`, the source line with a caret underline
  under the written expression, the related locations, then a summary line.
- `json`: the public contract, exactly `{"diagnostics": [Diagnostic.to_json()...], "errors": [FileError.to_json()...]}`.
- `sarif`: SARIF 2.1.0 (for code-scanning services and IDE viewers).
- `github`: GitHub Actions workflow commands (`::error file=...,line=...::message`), shown as annotations.
"""

from __future__ import annotations

from fixinplace.engine import Report

FORMATS = ("text", "json", "sarif", "github")


def render(report: Report, fmt: str = "text", *, color: bool = False, quiet: bool = False,
           show_fixes: bool = False, unsafe_fixes: bool = False) -> str:
    """The report in one format, as the text to print (ends with a newline unless empty)."""
    if fmt == "text":
        from fixinplace.output import text  # deferred: each format is loaded only when asked for

        return text.render(report, color=color, quiet=quiet, show_fixes=show_fixes, unsafe_fixes=unsafe_fixes)
    if fmt == "json":
        from fixinplace.output import json_format  # deferred: each format is loaded only when asked for

        return json_format.render(report)
    if fmt == "sarif":
        from fixinplace.output import sarif  # deferred: each format is loaded only when asked for

        return sarif.render(report)
    if fmt == "github":
        from fixinplace.output import github  # deferred: each format is loaded only when asked for

        return github.render(report)
    raise ValueError(f"unknown format {fmt!r} (choose from {', '.join(FORMATS)})")
