"""Static dataflow analysis: which in-place tensor writes break autograd (no torch needed)."""

from __future__ import annotations

import ast

from fixinplace.diagnostics import Diagnostic


def analyze_module(tree: ast.Module, source: str, path: str) -> list[Diagnostic]:
    """All hazard diagnostics (every severity, before suppression/selection) for one parsed file."""
    from fixinplace.analysis.interpreter import Interpreter  # deferred: it imports the rules, which import our events

    interp = Interpreter(tree, source, path)
    interp.run()
    interp.report.safe_writes(interp.calls.write_sites)
    return interp.report.diagnostics()
