"""Apply planned fixes to a module's text in one LibCST pass."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods import (
    augassign_out_of_place,
    clone_at_save,
    clone_before_write,
    method_out_of_place,
    out_to_assignment,
    remove_inplace,
    wrap_no_grad,
)
from fixinplace.diagnostics import Diagnostic

STRATEGIES = {
    module.NAME: module
    for module in (
        augassign_out_of_place,
        clone_at_save,
        clone_before_write,
        method_out_of_place,
        out_to_assignment,
        remove_inplace,
        wrap_no_grad,
    )
}


class _ApplyFixes(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, by_statement: dict[int, Diagnostic], constructors: dict[tuple[int, int], Diagnostic],
                 saves: dict[tuple[int, int, int, int], Diagnostic]):
        super().__init__()
        self.by_statement = by_statement
        self.constructors = constructors
        self.saves = saves
        self.applied: list[Diagnostic] = []
        self.module: cst.Module | None = None

    def visit_Module(self, node: cst.Module) -> bool:
        self.module = node
        return True

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        line = self.get_metadata(PositionProvider, original).start.line
        diagnostic = self.by_statement.get(line)
        if diagnostic is None or len(updated.body) != 1:
            return updated
        strategy = STRATEGIES[diagnostic.fix.strategy]
        result = strategy.rewrite(updated, diagnostic, self.module)
        if result is None:
            return updated
        self.applied.append(diagnostic)
        return result

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if self.saves and isinstance(original, cst.BaseExpression) and isinstance(result, cst.BaseExpression):
            position = self.get_metadata(PositionProvider, original, None)
            if position is not None:
                key = (position.start.line, position.start.column + 1, position.end.line, position.end.column + 1)
                diagnostic = self.saves.pop(key, None)
                if diagnostic is not None:
                    self.applied.append(diagnostic)
                    return clone_at_save.cloned(result)
        return result

    def leave_With(self, original: cst.With, updated: cst.With):
        line = self.get_metadata(PositionProvider, original).start.line
        diagnostic = self.by_statement.get(line)
        if diagnostic is None or diagnostic.fix.strategy != "clone_before_write":
            return updated
        self.applied.append(diagnostic)
        return clone_before_write.rewrite(updated, diagnostic, self.module)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        start = self.get_metadata(PositionProvider, original).start
        diagnostic = self.constructors.get((start.line, start.column))
        if diagnostic is None:
            return updated
        result = remove_inplace.without_inplace(updated)
        if result is None:
            return updated
        self.applied.append(diagnostic)
        return result


def apply_fixes(text: str, diagnostics: list[Diagnostic]) -> tuple[str, list[Diagnostic]]:
    """Apply the planned fix of each diagnostic (one per statement); the new text and the fixes applied."""
    by_statement: dict[int, Diagnostic] = {}
    constructors: dict[tuple[int, int], Diagnostic] = {}
    saves: dict[tuple[int, int, int, int], Diagnostic] = {}
    for d in sorted(diagnostics, key=lambda d: (d.line, d.column, d.code)):
        if d.fix is None or d.fix.strategy not in STRATEGIES:
            continue
        if d.fix.strategy == "clone_at_save":
            where = clone_at_save.span(d)
            if where is not None:
                saves.setdefault(where, d)
            continue
        if d.fix.strategy == "remove_inplace" and d.datum("form") == "inplace_module":
            key = (int(d.datum("module_line", "0")), int(d.datum("module_col", "0")))
            constructors.setdefault(key, d)
            continue
        line = int(d.datum("stmt_line", str(d.line)))
        if d.fix.strategy == "clone_before_write" and d.datum("grad_on_line"):
            line = int(d.datum("grad_on_line"))  # before the `with torch.no_grad():` block
        by_statement.setdefault(line, d)
    if not by_statement and not constructors and not saves:
        return text, []
    module = cst.parse_module(text)
    transformer = _ApplyFixes(by_statement, constructors, saves)
    new_module = MetadataWrapper(module).visit(transformer)
    return new_module.code, transformer.applied
