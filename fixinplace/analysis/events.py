"""What the analysis found, as typed events: each is turned into a diagnostic by the one rule that claims it
(`fixinplace.rules.rule_for`), which words the message and plans the fix.

An event says what happened at a write site, in the analysis's own terms (the site, the write, the save it
changed); the reporter (`report.py`) keeps the most severe diagnostic per site and rule, places it (at the call
that runs a write in another file) and hands the write's facts to the fix stage. A new rule needs a new event only
when no event here carries what it looks at.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from fixinplace.analysis.values import ArraySource, Save, Site, TensorValue, Write


class _Event:
    """What the reporter reads of every event, with the defaults of an event made at no branch and no save: the
    statements being run (outermost first), the branch paths it happened on, and the save it changed."""

    stmts = ()
    saved = None

    @property
    def paths(self) -> tuple:
        path = getattr(self, "path", None)
        return (path,) if path is not None else ()


@dataclass(frozen=True, eq=False)
class SaveInvalidated(_Event):
    """A backward needs a tensor an op saved, and `write` changed that tensor after the save."""

    write: Write
    save: Save
    backward_label: str  # what is differentiated (`loss`, `out.sum()`)
    backward_line: Optional[int]  # the backward's line in this file, when it is here
    certain: bool  # the save and the write both surely happen
    move: dict  # the facts of statements that could move past the backward (`fixinplace.analysis.moves`)

    @property
    def site(self) -> Site:
        return self.write.site

    @property
    def stmts(self) -> tuple:
        return self.write.stmts

    @property
    def paths(self) -> tuple:
        return (self.write.path, self.save.path)

    @property
    def saved(self) -> tuple:
        return (self.save, self.backward_line or 0, self.move)


@dataclass(frozen=True, eq=False)
class LeafWritten(_Event):
    """An in-place write to a leaf that requires grad (or may be one), in grad mode (or maybe)."""

    site: Site
    label: str  # the written expression
    why: str  # why it is a leaf that requires grad ("created with requires_grad=True at line 3")
    certain: bool
    view: bool = False  # written through a view of the leaf
    created: Optional[tuple[int, int]] = None  # where the leaf is made (line, column), when in the checked file
    stmts: tuple = ()
    path: tuple = ()
    # The written view is one of several an op returned (its name), or was made in no-grad mode: PyTorch then
    # refuses the write with that error, not the leaf one.
    multi_output_of: str = ""
    made_without_grad: Optional[bool] = False


@dataclass(frozen=True, eq=False)
class ArrayWritten(_Event):
    """An in-place write to a tensor that shares a NumPy array's memory (`torch.from_numpy(a)`), where the array
    is seen again: `reader` says how ("read_after": its local or argument is read again in the function that
    made the tensor; "argument": it is the caller's array; "outlives": an attribute or a global)."""

    site: Site
    label: str
    source: ArraySource
    reader: str
    certain: bool
    stmts: tuple = ()
    path: tuple = ()


@dataclass(frozen=True, eq=False)
class InputReused(_Event):
    """An in-place call whose result is bound to another name (`out = relu_(x)`), and whose input's name is read
    again afterwards."""

    site: Site
    root: str  # the written input's name
    bound: str  # the name the result is bound to
    stmts: tuple = ()


@dataclass(frozen=True, eq=False)
class HiddenDataWrite(_Event):
    """A parameter written through `.data` inside a `forward` that then uses it."""

    site: Site
    label: str  # the write as written (`self.w.data`)
    param: str  # the parameter
    used_line: Optional[int]  # where the forward uses it, when in the checked file
    stmts: tuple = ()


@dataclass(frozen=True, eq=False)
class TensorWritten(_Event):
    """Any in-place write to a tensor (not a silent one), with what the analysis knows of the written value: rules
    that look only at the value and the grad mode at the write claim it."""

    site: Site
    label: str  # the written expression
    value: TensorValue  # the written value (`value.view`, `value.rg`, `value.multi_output_of`, ...)
    grad_mode: Optional[bool]  # at the write (None: unknown)
    certain: bool  # the written value surely is this tensor
    stmts: tuple = ()
    path: tuple = ()


@dataclass(frozen=True, eq=False)
class SafeWrite(_Event):
    """A write site at which no hazard was found."""

    site: Site

    stmts = ()

Event = SaveInvalidated | LeafWritten | ArrayWritten | InputReused | HiddenDataWrite | TensorWritten | SafeWrite
