"""The codemods as stand-alone LibCST commands: each finds the hazards of a file itself, with fixinplace, and
applies its rewrite to every one for which it is the fix fixinplace would choose, each rewrite checked by
re-analysis as `fixinplace fix` checks it:

    python -m libcst.tool codemod -x fixinplace.fix.standalone.CloneAtSave src/
    python -m libcst.tool codemod -x fixinplace.fix.standalone.MethodOutOfPlace --unsafe-fixes train.py

They live in the fix stage, not beside the codemods: running one means running the fix stage (`fix_text`), which
itself builds the codemods (`codemods/` never imports `fixinplace.fix`).
"""

from __future__ import annotations

import argparse

import libcst as cst
from libcst.codemod import CodemodContext, SkipFile

import codemods
from codemods._base import InPlaceFix
from fixinplace.fix.checked import fix_text
from fixinplace.settings import ConfigError, Settings, load_settings


class Standalone(InPlaceFix):
    """A codemod run on whole files: the hazards it fixes are the ones `fixinplace fix` fixes with it."""

    def __init__(self, context: CodemodContext, *, unsafe_fixes: bool = False, fix_style: str = "readable") -> None:
        super().__init__(context, None, unsafe_fixes=unsafe_fixes, fix_style=fix_style)

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        """Options of the stand-alone command (`python -m libcst.tool codemod -x ...`)."""
        arg_parser.add_argument("--unsafe-fixes", dest="unsafe_fixes", action="store_true",
                                help="also apply the rewrite where it is an unsafe fix")
        arg_parser.add_argument("--fix-style", dest="fix_style", choices=("readable", "functional"),
                                default="readable", help="the form of subscript rewrites (see fixinplace fix)")

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        """Every hazard of the module that fixinplace fixes with this codemod, each one checked."""
        path = self.context.filename or "<stdin>"
        try:
            settings = load_settings(None, [path]) if self.context.filename else Settings()
        except ConfigError:
            settings = Settings()
        result = fix_text(tree.code, path, settings.override(unsafe_fixes=self.unsafe_fixes), style=self.fix_style,
                          strategies=(self.NAME,))
        if not result.applied:
            raise SkipFile(f"no hazard that `{self.NAME}` fixes")
        return cst.parse_module(result.source)


class AugAssignOutOfPlace(Standalone, codemods.AugAssignOutOfPlace):
    """`codemods.AugAssignOutOfPlace` on whole files."""


class CloneAtSave(Standalone, codemods.CloneAtSave):
    """`codemods.CloneAtSave` on whole files."""


class CloneBeforeWrite(Standalone, codemods.CloneBeforeWrite):
    """`codemods.CloneBeforeWrite` on whole files."""


class DataOutOfPlace(Standalone, codemods.DataOutOfPlace):
    """`codemods.DataOutOfPlace` on whole files."""


class DetachCarriedState(Standalone, codemods.DetachCarriedState):
    """`codemods.DetachCarriedState` on whole files."""


class InplaceLiteralOff(Standalone, codemods.InplaceLiteralOff):
    """`codemods.InplaceLiteralOff` on whole files."""


class MethodOutOfPlace(Standalone, codemods.MethodOutOfPlace):
    """`codemods.MethodOutOfPlace` on whole files."""


class MoveAfterBackward(Standalone, codemods.MoveAfterBackward):
    """`codemods.MoveAfterBackward` on whole files."""


class OutToAssignment(Standalone, codemods.OutToAssignment):
    """`codemods.OutToAssignment` on whole files."""


class RecomputeForward(Standalone, codemods.RecomputeForward):
    """`codemods.RecomputeForward` on whole files."""


class RemoveInplace(Standalone, codemods.RemoveInplace):
    """`codemods.RemoveInplace` on whole files."""


class SetitemOutOfPlace(Standalone, codemods.SetitemOutOfPlace):
    """`codemods.SetitemOutOfPlace` on whole files."""


class WrapNoGrad(Standalone, codemods.WrapNoGrad):
    """`codemods.WrapNoGrad` on whole files."""


#: Every stand-alone command, by strategy name.
STANDALONE: dict[str, type[Standalone]] = {
    command.NAME: command
    for command in (AugAssignOutOfPlace, CloneAtSave, CloneBeforeWrite, DataOutOfPlace, DetachCarriedState,
                    InplaceLiteralOff,
                    MethodOutOfPlace, MoveAfterBackward, OutToAssignment, RecomputeForward, RemoveInplace,
                    SetitemOutOfPlace, WrapNoGrad)
}
