"""LibCST codemods that rewrite hazardous in-place tensor writes, one rewrite per module.

Each module defines one `codemods._base.InPlaceFix` command (a LibCST `CodemodCommand` that visits the tree as a
`CSTTransformer`). fixinplace's fix stage (`fixinplace.fix`) decides which rewrite to try for each reported write
and builds the command with the write's facts and anchor. Each one's stand-alone command
(`python -m libcst.tool codemod -x fixinplace.fix.standalone.<Class> PATH`) finds the hazards itself with fixinplace
and applies its rewrite wherever fixinplace would.
"""

from __future__ import annotations

from codemods._base import InPlaceFix
from codemods.augassign_out_of_place import AugAssignOutOfPlace
from codemods.clone_at_save import CloneAtSave
from codemods.clone_before_write import CloneBeforeWrite
from codemods.data_out_of_place import DataOutOfPlace
from codemods.detach_carried_state import DetachCarriedState
from codemods.inplace_literal_off import InplaceLiteralOff
from codemods.method_out_of_place import MethodOutOfPlace
from codemods.move_after_backward import MoveAfterBackward
from codemods.out_to_assignment import OutToAssignment
from codemods.recompute_forward import RecomputeForward
from codemods.remove_inplace import RemoveInplace
from codemods.setitem_out_of_place import SetitemOutOfPlace
from codemods.wrap_no_grad import WrapNoGrad

#: Every codemod, by strategy name.
CODEMODS: dict[str, type[InPlaceFix]] = {
    codemod.NAME: codemod
    for codemod in (AugAssignOutOfPlace, CloneAtSave, CloneBeforeWrite, DataOutOfPlace, DetachCarriedState,
                    InplaceLiteralOff,
                    MethodOutOfPlace, MoveAfterBackward, OutToAssignment, RecomputeForward, RemoveInplace,
                    SetitemOutOfPlace, WrapNoGrad)
}

__all__ = ["CODEMODS", "AugAssignOutOfPlace", "CloneAtSave", "CloneBeforeWrite", "DataOutOfPlace",
           "DetachCarriedState", "InPlaceFix",
           "InplaceLiteralOff",
           "MethodOutOfPlace", "MoveAfterBackward", "OutToAssignment", "RecomputeForward", "RemoveInplace",
           "SetitemOutOfPlace",
           "WrapNoGrad"]
