"""The static fix for a traced write, where `fixinplace check` can fix that line (title and diff)."""

from __future__ import annotations

import os
from typing import Dict, List, Optional

from fixinplace.engine import SourceError, check_source, read_source
from fixinplace.reading import is_notebook
from fixinplace.settings import ConfigError, load_settings


def _guarded(cache: Dict, key: object, compute, failed: object) -> object:
    """`cache[key]`, computed once; `failed` when the file cannot be read or checked, or the analysis fails (a bug
    in the analysis must not hide the trace's findings)."""
    if key not in cache:
        try:
            cache[key] = compute()
        except (SourceError, OSError, ConfigError):
            cache[key] = failed
        except Exception:
            if os.environ.get("FIXINPLACE_DEBUG"):
                raise
            cache[key] = failed
    return cache[key]


def _checked(path: str, cache: Dict) -> tuple:
    """(text, diagnostics, settings) of `check` on one file (with the nearest pyproject's settings), once per file;
    ("", [], None) when it cannot be read or checked."""
    def compute() -> tuple:
        text = read_source(path)
        settings = load_settings(None, [path])  # the project's config
        return text, check_source(text, path, settings), settings

    return _guarded(cache, path, compute, ("", [], None))


def fix_for(path: str, line: int, shown: str, cache: Dict) -> Optional[dict]:
    """{"title", "applicability", "diff"} of the fix `fixinplace fix` would apply to the diagnostic on
    `path`:`line`, or None. Only that line's diagnostics get their fixes checked (each check re-analyses the file)."""
    if not os.path.isfile(path) or is_notebook(path):
        return None  # (a notebook's lines: `check` shows their fixes, by cell)
    from fixinplace.fix import apply_offered, offer  # deferred: the fix stage (LibCST), only for a line check can fix
    from fixinplace.fix.files import unified_diff  # deferred: the fix stage (LibCST), as above

    text, diagnostics, settings = _checked(path, cache)
    on_line = [d for d in diagnostics if d.line == line]
    if not on_line:
        return None
    for d in _guarded(cache, (path, line), lambda: offer(text, path, on_line, settings), []):
        if d.fix is None:
            continue
        new_text = apply_offered(text, path, d)
        if new_text is not None and new_text != text:
            return {"title": d.fix.description, "applicability": d.fix.applicability,
                    "diff": unified_diff(text, new_text, shown)}
    return None


def attach_fixes(findings: List) -> None:
    """Fill each finding's `fix` from the static analysis of the file of its write (when it has one)."""
    cache: Dict = {}  # per file: its check; per (file, line): that line's checked fixes
    for f in findings:
        if f.mutation is not None and f.fix is None:
            f.fix = fix_for(f.mutation.filename, f.mutation.line, f.mutation.path, cache)
