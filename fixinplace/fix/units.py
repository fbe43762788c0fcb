"""Rewriting one top-level definition at a time, so that fixing many hazards costs about as much as the file.

A rewrite by LibCST costs time in proportion to the whole module (its traversal, its positions, its code). When a
rewrite only touches one top-level function or class, it is made on a small module that holds that definition and
the module's imports before it (what codemods read: the name `torch` is imported under), with its anchor moved to
the small module's lines, and its code is spliced back into the file's text. Only texts that LibCST reproduces
exactly are rewritten this way.
"""

from __future__ import annotations

import bisect
import dataclasses
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from codemods._base import rewrite_tree, shared_wrapper
from fixinplace.diagnostics import Diagnostic
from fixinplace.facts import Span
from fixinplace.fix.candidates import Candidate
from fixinplace.lines import split_lines


@dataclass(frozen=True)
class Unit:
    """One top-level function or class of a text: where it is, and its code (its comments above included)."""

    index: int  # in the module's body
    node: cst.CSTNode
    first_line: int  # the lines of its code (the comments and blank lines above it included)
    last_line: int
    offset: int  # where its code starts in the text
    code: str


@dataclass(frozen=True)
class UnitRewrite:
    """A candidate's rewrite of one unit: the unit's new code."""

    unit: Unit
    code: str


class Units:
    """The top-level functions and classes of one text, and the imports before each."""

    def __init__(self, source: str, tree: cst.Module) -> None:
        """The units of `tree`, the module LibCST parsed from `source` and whose code is `source` exactly."""
        self.source = source
        self.tree = tree
        self.units: list[Unit] = []
        self._imports: list[cst.CSTNode] = []
        self._imports_before: dict[int, tuple[int, int]] = {}  # unit index -> (imports before it, their lines)
        header = "".join(tree.code_for_node(line) for line in tree.header)
        offset, line, import_lines = len(header), len(split_lines(header)) + 1, 0
        for index, node in enumerate(tree.body):
            code = tree.code_for_node(node)
            lines = len(split_lines(code))
            if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
                self._imports_before[index] = (len(self._imports), import_lines)
                self.units.append(Unit(index, node, line, line + lines - 1, offset, code))
            elif isinstance(node, cst.SimpleStatementLine) and all(
                    isinstance(small, (cst.Import, cst.ImportFrom)) for small in node.body):
                self._imports.append(node)
                import_lines += lines
            offset, line = offset + len(code), line + lines
        self._first_lines = [unit.first_line for unit in self.units]

    def holding(self, lines: list[int]) -> Optional[Unit]:
        """The unit that holds all of these lines, if one does."""
        if not lines:
            return None
        at = bisect.bisect_right(self._first_lines, min(lines)) - 1  # units are in order and do not overlap
        unit = self.units[at] if at >= 0 else None
        return unit if unit is not None and max(lines) <= unit.last_line else None

    def rewrite(self, candidate: Candidate, target: Diagnostic, path: str) -> UnitRewrite | None | bool:
        """The candidate's rewrite made on its unit alone; None when it changes nothing; False when it reaches
        outside the unit (a save in another function, a statement moved out of it), so it cannot be made here."""
        anchor = dict(candidate.anchor)
        unit = self.holding([target.line, *anchor_lines(anchor)])
        if unit is None:
            return False
        count, import_lines = self._imports_before[unit.index]
        imports = self._imports[:count]
        small = cst.Module(body=[*imports, unit.node], header=(), footer=(), encoding=self.tree.encoding,
                           default_indent=self.tree.default_indent, default_newline=self.tree.default_newline,
                           has_trailing_newline=True)
        shift = unit.first_line - (import_lines + 1)  # in the small module, the unit's code follows the imports'
        new = rewrite_tree(candidate.codemod, small, shared_wrapper(small), path, target.facts,
                           **{key: _moved(key, value, -shift) for key, value in anchor.items()})
        if new is None:
            return None
        if len(new.body) < len(imports) or any(not a.deep_equals(b) for a, b in zip(new.body[:len(imports)], imports)):
            return False
        code = "".join(new.code_for_node(node) for node in new.body[len(imports):])
        return None if code == unit.code else UnitRewrite(unit, code)

    def splice(self, rewrites: list[UnitRewrite]) -> str:
        """The text with each rewritten unit's new code in place of its old code."""
        text = self.source
        for rewrite in sorted(rewrites, key=lambda r: r.unit.offset, reverse=True):
            start = rewrite.unit.offset
            text = text[:start] + rewrite.code + text[start + len(rewrite.unit.code):]
        return text


def anchor_lines(anchor: dict) -> list[int]:
    """Every line an anchor names (a statement's line, the lines of its spans)."""
    lines: list[int] = []
    for key, value in anchor.items():
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Span):
                lines += [item.line, item.end_line]
            elif key == "line" and isinstance(item, int) and not isinstance(item, bool):
                lines.append(item)
    return lines


def _moved(key: str, value: object, by: int) -> object:
    """An anchor value with its lines moved by `by`."""
    if isinstance(value, Span):
        return dataclasses.replace(value, line=value.line + by, end_line=value.end_line + by)
    if isinstance(value, tuple):
        return tuple(_moved(key, item, by) for item in value)
    if key == "line" and isinstance(value, int) and not isinstance(value, bool):
        return value + by
    return value
