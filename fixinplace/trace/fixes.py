"""The static fix for a traced write, where `fixinplace check` can fix that line (title and diff)."""

from __future__ import annotations

import os
from typing import Dict, List, Optional


def _checked(path: str, cache: Dict[str, tuple]) -> tuple:
    """(text, diagnostics with their checked fixes) of one file (with the nearest pyproject's settings), once per
    file; ("", []) when it cannot be read or checked."""
    if path not in cache:
        from fixinplace.engine import SourceError, check_source, read_source
        from fixinplace.fix import offer
        from fixinplace.settings import ConfigError, load_settings

        try:
            text = read_source(path)
            settings = load_settings(None, [path])  # the project's config
            cache[path] = (text, offer(text, path, check_source(text, path, settings), settings))
        except (SourceError, OSError, ConfigError):
            cache[path] = ("", [])
        except Exception:  # a bug in the analysis must not hide the trace's findings
            if os.environ.get("FIXINPLACE_DEBUG"):
                raise
            cache[path] = ("", [])
    return cache[path]


def fix_for(path: str, line: int, shown: str, cache: Dict[str, tuple]) -> Optional[dict]:
    """{"title", "applicability", "diff"} of the fix `fixinplace fix` would apply to the diagnostic on
    `path`:`line`, or None."""
    if not os.path.isfile(path):
        return None
    text, diagnostics = _checked(path, cache)
    for d in diagnostics:
        if d.line != line or d.fix is None:
            continue
        from fixinplace.fix import apply_offered
        from fixinplace.fix.files import unified_diff

        new_text = apply_offered(text, path, d)
        if new_text is not None and new_text != text:
            return {"title": d.fix.description, "applicability": d.fix.applicability,
                    "diff": unified_diff(text, new_text, shown)}
    return None


def attach_fixes(findings: List) -> None:
    """Fill each finding's `fix` from the static analysis of the file of its write (when it has one)."""
    cache: Dict[str, tuple] = {}
    for f in findings:
        if f.mutation is not None and f.fix is None:
            f.fix = fix_for(f.mutation.filename, f.mutation.line, f.mutation.path, cache)
