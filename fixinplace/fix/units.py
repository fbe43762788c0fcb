"""Rewriting top-level definitions on their own, so that fixing many hazards costs about as much as the file.

A rewrite by LibCST costs time in proportion to the whole module (its parse, traversal, positions and code). When a
rewrite only touches one or a few top-level functions or classes, it is made on a small module that holds those
definitions and the module's imports before them (what codemods read: the name `torch` is imported under), parsed
from their text alone, with its anchor moved to the small module's lines; their new code is spliced back into the
file's text. The units are found with `ast` (no LibCST parse of the whole text), and a small module is only used
when LibCST reproduces its text exactly and reads it with the file's own indentation and line ending (what new
code is written with).
"""

from __future__ import annotations

import ast
import bisect
import dataclasses
import io
import tokenize
from dataclasses import dataclass
from typing import Callable, Optional

import libcst as cst
from libcst.metadata import MetadataWrapper

from codemods._base import rewrite_tree, shared_wrapper
from fixinplace.diagnostics import Diagnostic
from fixinplace.facts import Span
from fixinplace.fix.candidates import Candidate
from fixinplace.lines import LINE_ENDING, split_lines


def parse_for_rewriting(source: str) -> cst.Module:
    """The LibCST module of a text, ready for codemods (raises `cst.ParserSyntaxError`).

    LibCST takes the module's default indentation from its first indented line, form feed included (a page break
    opening that line), and then refuses every module a codemod builds with it: the indentation is made of the
    spaces and tabs alone (the lines it changes are restored by `fixinplace.fix.checked.keep_untouched_lines`)."""
    tree = cst.parse_module(source)
    if tree.default_indent.strip(" \t"):
        tree = tree.with_changes(default_indent="".join(c for c in tree.default_indent if c in " \t") or "    ")
    return tree


@dataclass(frozen=True)
class Unit:
    """One top-level function or class of a text: where it is, and its code (the comments and blank lines between
    it and the statement before it included)."""

    index: int  # in the module's body (`ast`'s statements)
    first_line: int  # the lines of its code
    last_line: int
    offset: int  # where its code starts in the text
    code: str


@dataclass(frozen=True)
class UnitRewrite:
    """A candidate's rewrite of one unit: the unit's new code."""

    unit: Unit
    code: str


@dataclass(frozen=True)
class _Small:
    """The small module of some units: the imports before them, then their code."""

    tree: cst.Module
    wrapper: MetadataWrapper
    imports: int  # how many of its statements are imports
    line: Callable[[int], int]  # a line of the text -> its line in the small module


class Units:
    """The top-level functions and classes of one text, and the imports before each."""

    def __init__(self, source: str, module: ast.Module) -> None:
        """The units of `source`, whose `ast` module is `module`."""
        self.source = source
        self.units: list[Unit] = []
        lines = split_lines(source)
        starts = [0]
        for line in lines:
            starts.append(starts[-1] + len(line))
        self._imports: list[str] = []  # the code of each top-level line of imports
        self._imports_before: dict[int, int] = {}  # unit index -> how many import lines come before it
        end = 0  # the last line of the statement before
        body = module.body
        for index, stmt in enumerate(body):
            first, last = end + 1, stmt.end_lineno or stmt.lineno
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                self._imports_before[index] = len(self._imports)
                self.units.append(Unit(index, first, last, starts[first - 1], "".join(lines[first - 1:last])))
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)) and last > end:
                # A line of imports only (`import a; import b`), as LibCST's statement lines go: the statements
                # after it on its lines are imports too (one before it on its first line made `last > end` false).
                after = index + 1
                while after < len(body) and body[after].lineno <= last and isinstance(
                        body[after], (ast.Import, ast.ImportFrom)):
                    after += 1
                if after == len(body) or body[after].lineno > last:
                    self._imports.append("".join(lines[stmt.lineno - 1:last]))
            end = max(end, last)
        self._first_lines = [unit.first_line for unit in self.units]
        self._indent = _default_indent(source)
        found = LINE_ENDING.search(source)
        self._newline = found.group() if found else "\n"
        self._small: dict[tuple[int, ...], Optional[_Small]] = {}

    def holding(self, lines: list[int]) -> Optional[Unit]:
        """The unit that holds all of these lines, if one does."""
        held = self.holding_each(lines)
        return held[0] if held is not None and len(held) == 1 else None

    def holding_each(self, lines: list[int]) -> Optional[list[Unit]]:
        """The units that hold these lines (each line in one of them), in order; None when a line is in none."""
        if not lines:
            return None
        held: dict[int, Unit] = {}
        for line in lines:
            at = bisect.bisect_right(self._first_lines, line) - 1  # units are in order and do not overlap
            unit = self.units[at] if at >= 0 else None
            if unit is None or line > unit.last_line:
                return None
            held[unit.index] = unit
        return [held[index] for index in sorted(held)]

    def rewrite(self, candidate: Candidate, target: Diagnostic, path: str) -> UnitRewrite | None | bool:
        """The candidate's rewrite made on its unit alone; None when it changes nothing; False when it reaches
        outside the unit (a save in another function, a statement moved out of it), so it cannot be made here."""
        rewrites = self.rewrite_across(candidate, target, path, most=1)
        return rewrites[0] if isinstance(rewrites, list) else rewrites

    def rewrite_across(self, candidate: Candidate, target: Diagnostic, path: str,
                       most: Optional[int] = None) -> list[UnitRewrite] | None | bool:
        """The candidate's rewrite made on the units it touches alone (the write in one function, the save it
        clones in its caller): the rewrites of the units it changes; None when it changes nothing; False when it
        reaches outside them (a module-level line, a statement moved out of a unit), past `most` units, or when
        the units cannot be rewritten alone (LibCST would not reproduce or indent them as in the file)."""
        anchor = dict(candidate.anchor)
        held = self.holding_each([target.line, *anchor_lines(anchor)])
        if held is None or (most is not None and len(held) > most):
            return False
        small = self._small_module(held)
        if small is None:
            return False
        new = rewrite_tree(candidate.codemod, small.tree, small.wrapper, path, target.facts,
                           **{key: _moved(key, value, small.line) for key, value in anchor.items()})
        if new is None:
            return None
        imports = small.tree.body[:small.imports]
        if len(new.body) < len(imports) or any(not a.deep_equals(b) for a, b in zip(new.body[:len(imports)], imports)):
            return False
        bodies = new.body[len(imports):]
        if len(held) == 1:  # statements the codemod adds after the unit go with it
            codes = ["".join(new.code_for_node(node) for node in bodies)]
        elif len(bodies) == len(held):
            codes = [new.code_for_node(node) for node in bodies]
        else:
            return False
        if not imports:  # the blank lines and comments that open the first unit are the small module's header
            codes[0] = "".join(new.code_for_node(line) for line in new.header) + codes[0]
        rewrites = [UnitRewrite(unit, code) for unit, code in zip(held, codes) if code != unit.code]
        return rewrites or None

    def _small_module(self, held: list[Unit]) -> Optional[_Small]:
        """The small module of these units (parsed once), or None when it cannot stand for them."""
        key = tuple(unit.index for unit in held)
        if key in self._small:
            return self._small[key]
        imports = self._imports[:self._imports_before[held[-1].index]]
        text = "".join([*imports, *(unit.code for unit in held)])
        small = None
        try:
            tree = parse_for_rewriting(text)
        except cst.ParserSyntaxError:
            tree = None
        if (tree is not None and tree.code == text and tree.default_indent == self._indent
                and tree.default_newline == self._newline and len(tree.body) >= len(held)):
            shifts, line = [], sum(len(split_lines(code)) for code in imports) + 1
            for unit in held:  # in the small module, the units' code follows the imports', one after the other
                shifts.append((unit.first_line, unit.last_line, unit.first_line - line))
                line += unit.last_line - unit.first_line + 1

            def small_line(old: int) -> int:
                return old - next(shift for first, last, shift in shifts if first <= old <= last)

            small = _Small(tree, shared_wrapper(tree), len(tree.body) - len(held), small_line)
        self._small[key] = small
        return small

    def splice(self, rewrites: list[UnitRewrite]) -> str:
        """The text with each rewritten unit's new code in place of its old code."""
        text = self.source
        for rewrite in sorted(rewrites, key=lambda r: r.unit.offset, reverse=True):
            start = rewrite.unit.offset
            text = text[:start] + rewrite.code + text[start + len(rewrite.unit.code):]
        return text


def _default_indent(source: str) -> str:
    """The indentation LibCST gives a module parsed from this text (its first indented line's, spaces and tabs
    only; four spaces when none is): what codemods indent new blocks with."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.INDENT:  # the first one is relative to column 0
                return "".join(c for c in token.string if c in " \t") or "    "
    except (tokenize.TokenError, SyntaxError):
        pass
    return "    "


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


def _moved(key: str, value: object, to: Callable[[int], int]) -> object:
    """An anchor value with each of its lines moved by `to`."""
    if isinstance(value, Span):
        return dataclasses.replace(value, line=to(value.line), end_line=to(value.end_line))
    if isinstance(value, tuple):
        return tuple(_moved(key, item, to) for item in value)
    if key == "line" and isinstance(value, int) and not isinstance(value, bool):
        return to(value)
    return value
