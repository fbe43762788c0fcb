"""What the analysis knows about one reported write: the typed record the fix stage plans its rewrites from.

The analysis (`fixinplace.analysis`) fills a `WriteFacts` for every diagnostic; the fix stage (`fixinplace.fix`)
and the codemods read it. Positions are 1-based, columns count characters, end columns are exclusive (as in
`Diagnostic`). The record is plain data (JSON round-trip for the cache).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from enum import Enum
from typing import Any, Optional


class TextEnum(str, Enum):
    """An enum whose members are their text: equal to it, and printed, formatted and written to JSON as it (so a
    member stands wherever the text did, byte for byte)."""

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


class WriteForm(TextEnum):
    """How the source writes in place."""

    METHOD = "method"  # `x.add_(y)`
    AUGASSIGN = "augassign"  # `x += y`
    SETITEM = "setitem"  # `x[i] = y`
    DATA_ASSIGN = "data_assign"  # `p.data = new`
    OUT = "out"  # `torch.add(a, b, out=x)`
    INPLACE_KW = "inplace_kw"  # `F.relu(x, inplace=True)`
    INPLACE_MODULE = "inplace_module"  # a module built with `inplace=True` applied to `x`
    OPTIMIZER = "optimizer"  # `optimizer.step()`
    LIBRARY = "library"  # a library call measured to bump the version of an argument or a module's tensor
    CALL = "call"  # a call of this file that runs the write in another project file


class GradMode(TextEnum):
    """Whether grad mode is on where a write runs."""

    ON = "on"
    OFF = "off"
    UNKNOWN = "unknown"  # the analysis does not know it there (a function whose callers it does not see)

    @classmethod
    def of(cls, enabled: Optional[bool]) -> "GradMode":
        """The mode for a three-valued "grad mode is on" (None: not known)."""
        return cls.UNKNOWN if enabled is None else cls.ON if enabled else cls.OFF


@dataclass(frozen=True, slots=True)
class Span:
    """Where an expression or statement is in the source."""

    line: int
    column: int
    end_line: int
    end_column: int


@dataclass(frozen=True, slots=True)
class Operand:
    """One other operand of a write (`y` in `x.add_(y)`, `x += y`, `x[i] = y`)."""

    kind: str  # number (a Python int/float/bool), tensor (known or maybe a tensor), other (str, None, unknown)
    text: str  # its source text
    dtype: str = ""  # the dtype when the analysis knows it ("float32", ...), else ""
    # A Python number, or a tensor computed only from the written tensor (and numbers) by ops that keep its dtype
    # and never make it larger (`x.amax(1, keepdim=True)`, `x.norm()`, `x.exp()`): `x = x - <operand>` then has
    # the dtype and shape of the in-place result.
    follows_target: bool = False


@dataclass(frozen=True, slots=True)
class SavedBy:
    """One save that the write invalidated: the op, what it saved, and where."""

    op: str
    role: str  # output | input | input `w` | weight | running_mean | ...
    label: str  # the saved tensor as named at the save
    span: Span  # the saving op's expression (a call, an operator, a module application)
    certain: bool
    # The saved input's own expression inside the op (`u` in `u.pow(2)`), when the op names it.
    operand: Optional[Span] = None
    # Whether `.clone()` at this save keeps every value and gradient and every alias's view of the write: a table
    # op (not an unknown callee) that is not in place, whose output is one fresh tensor (for an output save) or
    # does not alias the saved input (for an input save), on a value known to be a tensor.
    clonable: bool = False
    backward_line: int = 0  # the backward that needs the save (0: implicit, the caller's)
    # When the statement holding the write can run after that backward instead (`fixinplace.analysis.moves`): the
    # statement to move, the one to put it after, the backward's statement, and for an optimizer step the
    # `inputs=` that restricts the backward to the parameters it updates.
    move: Optional[Span] = None
    after: Optional[Span] = None
    backward: Optional[Span] = None
    inputs: str = ""
    # When the save was made by a forward statement that can run again for the backward: that statement, and the
    # loop whose iterations run the backward and then the write (it moves to the loop's start: a sample generated
    # once, then several generator steps), or the write's statement (it runs again right after it).
    recompute: Optional[Span] = None
    loop: Optional[Span] = None
    recompute_after: Optional[Span] = None
    # When nothing before the write needs what that forward binds: the forward and the statements that read what it
    # binds, which can all move after the write's statement instead of the forward running twice (the reorder a
    # maintainer makes: step the critic, then build the actor's loss through it).
    recompute_moved: tuple[Span, ...] = ()
    # When a loop carries the graph of one iteration into the next (a recurrent state) and the write at the end of
    # an iteration breaks what the next backward reaches through it: the statement where the state is cut with
    # `.detach()`, the carried name, and the name it takes its value from there ("": the statement rebinds the
    # carried name itself, `out, h = rnn(x, h)`, and `h = h.detach()` goes before it).
    carry: Optional[Span] = None
    carried: str = ""
    carried_from: str = ""


@dataclass(frozen=True, slots=True)
class Statement:
    """The statement a write stands in."""

    shape: str  # expr (`x.add_(1)`), assign (`z = x.mul_(2)`), statement (`x += 1`, `x[i] = v`), nested
    line: int
    end_line: int
    assigned: str = ""  # for `assign`: the name bound to the write's result


@dataclass(frozen=True, slots=True)
class WriteFacts:
    """Everything the fix stage may need about one in-place write."""

    form: WriteForm
    op: str  # add_, __setitem__, relu_, step, ...
    text: str  # source text of the write (one line, shortened)
    target: str = ""  # the written expression (`x`, `h[0]`, `self.w.t()`)
    root: str = ""  # the variable it goes back to (`x`, `h`, `self.w`)
    root_kind: str = "other"  # local | argument | global | attribute | element (of a container: `d["a"]`) | other
    target_is_tensor: bool = False  # the analysis knows the written value is a tensor
    target_dtype: str = ""  # its dtype, when the analysis knows it ("float32", ...)
    aliased: bool = False  # another name or view shares the root's tensor
    through_view: bool = False  # the written value is a view of another tensor (`w = x.t()`, then `w /= ...`)
    through_detach: bool = False  # the written value is `y.detach()` (or a view of it): it writes `y`'s storage
    read_after: bool = True  # the root name may be read after the write (rebinding it matters)
    # an argument no caller in the file can see written (`fixinplace.analysis.callers.argument_is_private`)
    argument_private: bool = False
    # for an argument: its function returns something else than the argument (or None), so the write is a side
    # effect of a computation rather than the function's purpose (an update of the caller's tensor)
    returns_other: bool = False
    chain: tuple[str, ...] = ()  # the statement is a chain of in-place calls on the root: `x.sub_(m).div_(s)`
    chain_exact: bool = False  # every operand of the chain keeps the root's dtype
    chain_promotes: bool = False  # an operand of the chain is known to have another dtype than the root
    operands: tuple[Operand, ...] = ()
    statement: Optional[Statement] = None
    grad_mode: GradMode = GradMode.ON  # where the write runs
    grad_on_line: int = 0  # for a write under no_grad: the `with` statement that turned grad mode off
    index_kind: str = ""  # subscript writes: basic (int/slice) | advanced (tensor/list) | unknown
    index_text: str = ""  # subscript writes: the index expression
    # subscript assignments: the kind of each index part (full, slice, ellipsis, int, mask_of_target, int_tensor,
    # bool_tensor, other; see `fixinplace.analysis.calls.CallHandler.index_info`)
    index_parts: tuple[str, ...] = ()
    leaf_kind: str = ""  # for a leaf write: param | fresh | arg ...
    after_backward: bool = False  # a leaf that already has a .grad (an update after a backward)
    # every run of the write wrote a leaf that requires grad, in grad mode: PyTorch refuses it each time, so no
    # reader (an alias, a view's base, a caller) ever sees what it writes
    raises_always: bool = False
    # a write to an element of a container (`laterals[i - 1] += up`) whose tensor only that container holds: a
    # local list of the writing function, the tensor made there, no name or caller sharing it
    element_private: bool = False
    # in some run, the written tensor comes from a caller the file does not show (an argument of a function
    # nobody here calls): what else saved it is unknown
    target_unknown: bool = False
    module_ctor: Optional[Span] = None  # inplace_module: the constructor call with inplace=True
    # inplace_module built without a literal `inplace=True`: the literal `True` (in this file) the flag came from
    inplace_literal: Optional[Span] = None
    module_condition: str = ""  # inplace_module: the constructor parameters (not known here) that, at 0, stop the write
    saves: tuple[SavedBy, ...] = ()  # every save this write invalidated (FIP101, FIP104, FIP103)
    shares_array: Optional[Span] = None  # FIP105: the call that made the tensor share a NumPy array's memory
    extra: tuple[tuple[str, str], ...] = field(default_factory=tuple)  # rule-specific details (fused, ...)
    # form `call`: the writes with this hazard that the call runs in other project files, as the call's context
    # shows them (the one the message names first)
    remotes: tuple["RemoteWrite", ...] = ()

    def detail(self, key: str, default: str = "") -> str:
        """One rule-specific detail."""
        return dict(self.extra).get(key, default)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (for the cache)."""
        return asdict(self)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "WriteFacts":
        """The record `to_json` wrote; raises (KeyError, TypeError, ValueError) on malformed data."""
        if not isinstance(raw, dict):
            raise TypeError("facts must be an object")

        def span(value: Any) -> Optional[Span]:
            return None if value is None else Span(*(int(value[k]) for k in ("line", "column", "end_line",
                                                                               "end_column")))

        values: dict[str, Any] = {}
        for f in fields(cls):
            value = raw[f.name]
            if f.name == "operands":
                value = tuple(Operand(str(o["kind"]), str(o["text"]), str(o["dtype"]), bool(o["follows_target"]))
                              for o in value)
            elif f.name == "statement":
                value = None if value is None else Statement(str(value["shape"]), int(value["line"]),
                                                             int(value["end_line"]), str(value["assigned"]))
            elif f.name in ("module_ctor", "inplace_literal", "shares_array"):
                value = span(value)
            elif f.name == "saves":
                value = tuple(SavedBy(
                    op=str(s["op"]), role=str(s["role"]), label=str(s["label"]), span=span(s["span"]),
                    certain=bool(s["certain"]), operand=span(s["operand"]), clonable=bool(s["clonable"]),
                    backward_line=int(s["backward_line"]), move=span(s["move"]), after=span(s["after"]),
                    backward=span(s["backward"]), inputs=str(s["inputs"]), recompute=span(s.get("recompute")),
                    loop=span(s.get("loop")), recompute_after=span(s.get("recompute_after")),
                    recompute_moved=tuple(span(m) for m in s.get("recompute_moved", ())),
                    carry=span(s.get("carry")), carried=str(s.get("carried", "")),
                    carried_from=str(s.get("carried_from", ""))) for s in value)
            elif f.name == "remotes":
                value = tuple(RemoteWrite.from_json(r) for r in value)
            elif f.name == "extra":
                value = tuple((str(k), str(v)) for k, v in value)
            elif f.name == "form":
                value = WriteForm(value)
            elif f.name == "grad_mode":
                value = GradMode(value)
            elif f.name in ("index_parts", "chain"):
                value = tuple(str(v) for v in value)
            elif f.type in ("bool",):
                value = bool(value)
            elif f.type in ("int",):
                value = int(value)
            else:
                value = str(value)
            values[f.name] = value
        return cls(**values)


@dataclass(frozen=True, slots=True)
class RemoteWrite:
    """The write a call runs in another project file (a diagnostic reported at the call): where it is, and its
    facts as the call's context shows them, positions in that file's own lines. The fix stage plans rewrites of
    that file from it, and keeps one only when the call's hazard is gone (`fixinplace.fix.remote`)."""

    path: str  # the file, as the analysis opened it
    display: str  # how messages name it (relative to the calling file's folder)
    span: Span  # the write's expression there
    facts: WriteFacts

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> "RemoteWrite":
        """The record `WriteFacts.to_json` wrote for it."""
        span = raw["span"]
        return cls(str(raw["path"]), str(raw["display"]),
                   Span(*(int(span[k]) for k in ("line", "column", "end_line", "end_column"))),
                   WriteFacts.from_json(raw["facts"]))
