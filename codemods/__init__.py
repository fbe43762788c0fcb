"""LibCST codemods, one rewrite strategy per module, driven by fixinplace's analysis.

The analysis decides which writes to rewrite and with which strategy (`fixinplace.planning`); each module here
only rewrites one statement (`rewrite(statement, diagnostic)`), and `apply_fixes` finds the statements by
position and applies at most one fix per statement in a single pass.
"""

from __future__ import annotations

from codemods._driver import apply_fixes

__all__ = ["apply_fixes"]
