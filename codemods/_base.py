"""The base of fixinplace's codemods: a LibCST codemod command that rewrites one reported in-place write.

Each codemod module defines one `InPlaceFix` subclass. Driven by fixinplace (`fixinplace.fix`), it is built with
the write's facts (`fixinplace.facts.WriteFacts`) and its anchor, the source positions it rewrites (a statement's
line, an expression's span), and changes only what stands there: `applied` says whether it did.

To run one on whole files, as LibCST users run codemods (it then finds the hazards itself with fixinplace and
applies its rewrite wherever fixinplace would), use its stand-alone command, which the fix stage defines:

    python -m libcst.tool codemod -x fixinplace.fix.standalone.CloneAtSave src/
"""

from __future__ import annotations

from typing import ClassVar, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile
from libcst.metadata import MetadataWrapper, PositionProvider

from fixinplace.facts import Span, WriteFacts


class InPlaceFix(CodemodCommand, cst.CSTTransformer):
    """One rewrite of one reported in-place write, anchored by source position.

    A visitor-based codemod command, as LibCST's `VisitorBasedCodemodCommand` is, over a plain `CSTTransformer`:
    that class's matcher decorators (unused here) cost a walk over every attribute of the instance, twice, each
    time a codemod is made, which was most of the fix stage's time (one codemod per candidate tried)."""

    NAME: ClassVar[str] = ""  # the strategy name (the module's name)
    DESCRIPTION: ClassVar[str] = ""
    # (before, after) programs: each one's hazard is fixed by this codemod alone (tests/test_codemods.py runs them
    # with LibCST's CodemodTest and under torch; docs/fixes.md shows them).
    EXAMPLES: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Programs with a real hazard that this codemod must leave alone, each with the reason (the hazard is fixed
    # another way, or not at all): tests/test_codemods.py checks that the codemod skips each one and that it raises
    # under torch; docs/fixes.md shows them.
    NOT_REWRITTEN: ClassVar[tuple[tuple[str, str], ...]] = ()
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, context: CodemodContext, facts: Optional[WriteFacts] = None, *, unsafe_fixes: bool = False,
                 fix_style: str = "readable", **anchor: object) -> None:
        CodemodCommand.__init__(self, context)
        self.facts = facts
        self.anchor = anchor
        self.unsafe_fixes = unsafe_fixes
        self.fix_style = fix_style
        self.applied = False

    # ----------------------------------------------------------------------------------------------- running
    def transform_module(self, tree: cst.Module) -> cst.Module:
        """LibCST's entry point; reuses the context's metadata wrapper when it was made for this very tree (the fix
        stage tries several rewrites on one parsed text)."""
        wrapper = self.context.wrapper
        if wrapper is None or wrapper.module is not tree:
            return super().transform_module(tree)
        with self.resolve(wrapper):
            return self.transform_module_impl(tree)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        if self.facts is None:
            raise SkipFile(f"`{type(self).__name__}` rewrites one reported write: run "
                           f"fixinplace.fix.standalone.{type(self).__name__} on whole files")
        return tree.visit(self)

    # ----------------------------------------------------------------------------------------------- anchors
    def start(self, node: cst.CSTNode) -> tuple[int, int]:
        """(line, column) where a node starts, 1-based (columns count characters, as in diagnostics)."""
        position = self.get_metadata(PositionProvider, node).start
        return position.line, position.column + 1

    def spans(self, node: cst.CSTNode, span: Span) -> bool:
        """Whether a node covers exactly `span`."""
        position = self.get_metadata(PositionProvider, node, None)
        if position is None:
            return False
        return (position.start.line, position.start.column + 1, position.end.line, position.end.column + 1) == (
            span.line, span.column, span.end_line, span.end_column)

    def starts_line(self, node: cst.CSTNode, line: int) -> bool:
        """Whether a statement starts on `line`."""
        position = self.get_metadata(PositionProvider, node, None)
        return position is not None and position.start.line == line

    def index_starting(self, statements: Sequence[cst.CSTNode], line: int) -> Optional[int]:
        """The index of the statement of `statements` that starts on `line`, or None."""
        return next((k for k, s in enumerate(statements) if self.starts_line(s, line)), None)

    def applies(self) -> None:
        """Record that the rewrite was made."""
        self.applied = True


class BlockRewrite(InPlaceFix):
    """A codemod that rewrites one statement list (an indented block, or the module's body) once: the first one for
    which `rewrite_block` returns new statements."""

    def rewrite_block(self, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode]) -> Optional[list]:
        """The block's new statements, or None to leave it (and look further)."""
        raise NotImplementedError

    def leave_IndentedBlock(self, original: cst.IndentedBlock, updated: cst.IndentedBlock):
        body = None if self.applied else self.rewrite_block(original.body, updated.body)
        return updated if body is None else updated.with_changes(body=body)

    def leave_Module(self, original: cst.Module, updated: cst.Module):
        body = None if self.applied else self.rewrite_block(original.body, updated.body)
        return updated if body is None else updated.with_changes(body=body)


def apply_codemod(codemod: type[InPlaceFix], tree: cst.Module, wrapper: MetadataWrapper | None, path: str,
                  facts: WriteFacts, **anchor: object) -> Optional[str]:
    """The text of `tree` rewritten by one codemod at one anchor, or None when it changed nothing."""
    new = rewrite_tree(codemod, tree, wrapper, path, facts, **anchor)
    return None if new is None else new.code


def rewrite_tree(codemod: type[InPlaceFix], tree: cst.Module, wrapper: MetadataWrapper | None, path: str,
                 facts: WriteFacts, **anchor: object) -> Optional[cst.Module]:
    """`tree` rewritten by one codemod at one anchor, or None when it changed nothing."""
    context = CodemodContext(filename=path, wrapper=wrapper)
    command = codemod(context, facts, **anchor)
    try:
        new = command.transform_module(tree)
    except SkipFile:
        return None
    return new if command.applied else None


def shared_wrapper(tree: cst.Module) -> MetadataWrapper:
    """A metadata wrapper over `tree` itself (no copy: LibCST trees are immutable), for many codemods in a row."""
    return MetadataWrapper(tree, unsafe_skip_copy=True)
