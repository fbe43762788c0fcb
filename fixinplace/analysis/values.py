"""Abstract values of the interpreter: tensors with version counters, saves, writes, modules, optimizers.

The model mirrors autograd: every tensor belongs to a version-counter `Group` (views, `.detach()` and in-place
results share their base's group; `.data` gets a group of its own that is a *silent* alias of the base). An op
that runs in grad mode records `Save`s on the groups of the tensors it saved, stamped with the group's current
write count. A `Write` bumps the count. A backward that needs a save whose group was written since is a hazard.
"""

from __future__ import annotations

import ast
import itertools
import operator
from dataclasses import dataclass, field
from typing import Optional

from fixinplace.facts import GradMode, Operand, Span, Statement, WriteForm

Tri = Optional[bool]  # True / False / unknown

_seq = itertools.count()


def next_seq() -> int:
    """A global, increasing event number (program order of the abstract run)."""
    return next(_seq)


def tri_or(*values: Tri) -> Tri:
    """Three-valued OR."""
    if any(v is True for v in values):
        return True
    if all(v is False for v in values):
        return False
    return None


def tri_join(a: Tri, b: Tri) -> Tri:
    """The value known on both paths, or unknown."""
    return a if a == b else None


Path = tuple  # tuple of (branch_key, frozenset of arms): the branch arms an event happened under


def compatible(p: Path, q: Path) -> bool:
    """False when two events happened in different arms of the same branch (they never both run).

    An event after a branch some of whose arms always leave (return/raise) carries the set of arms that fall
    through, so it never meets an event from an arm that left.
    """
    if not p or not q:
        return True
    arms = dict(p)
    for key, arm in q:
        other = arms.get(key)
        if other is not None and not (other & arm):
            return False
    return True


@dataclass(eq=False, slots=True)
class Group:
    """One version counter: a base tensor with all its views and aliases."""

    label: str
    line: int
    origin: str = "fresh"  # fresh | param | buffer | arg | unknown | grad | data | numpy
    origin_detail: str = ""  # e.g. "created with requires_grad=True at line 3", "parameter `weight` of `fc`"
    created: "tuple[int, int] | None" = None  # (line, column) where a leaf that requires grad is made, in this file
    silent_of: "Group | None" = None  # `.data` and `.numpy()` groups: writes here change `silent_of`'s values silently
    writes: list["Write"] = field(default_factory=list)
    named: bool = False  # label is a user-visible name (not just an expression)
    has_grad: Tri = None  # for leaves: whether `.grad` is set (optimizers skip parameters without one)
    names: set = field(default_factory=set)  # every variable name bound to this tensor or a view of it
    data_group: "Group | None" = None  # the group of `.data` (one per base, so its writes accumulate)
    grad_value: "TensorValue | None" = None  # the `.grad` tensor, once read
    numpy_group: "Group | None" = None  # the group of `.numpy()`: an alias NumPy writes change silently
    # A write through `.data` in the `forward` being run (FIP106): (site, label, depth and node of that forward)
    hidden_write: "tuple | None" = None
    array_source: "ArraySource | None" = None  # `torch.from_numpy(a)`: the NumPy array whose memory it shares
    # Where a branch the analysis cannot decide turns `requires_grad` off (`if args.freeze: w.requires_grad =
    # False`): the line, else 0. Whether the leaf still requires grad then depends on that branch.
    rg_switched_at: int = 0
    _use: "LeafUse | None" = None

    def rename(self, name: str) -> None:
        """Give the group a user-visible name, the first one it is bound to."""
        if not self.named:
            self.label = name
            self.named = True

    @property
    def use(self) -> "LeafUse":
        """The marker that a graph reaches this leaf (one object per group, so graphs dedupe it)."""
        if self._use is None:
            self._use = LeafUse(self)
        return self._use


@dataclass(frozen=True, eq=False)
class ArraySource:
    """The NumPy array a tensor shares memory with (`torch.from_numpy(a)`, `torch.as_tensor(a)`): writing the tensor
    in place writes the array, which autograd never sees."""

    call: str  # the call that made the tensor, as written (`torch.from_numpy(a)`)
    label: str  # the array's expression (`a`, `self.obs[i]`)
    root: str  # the variable it goes back to (`a`, `self.obs`)
    root_kind: str  # local | argument | global | attribute | other
    line: int
    span: "tuple[int, int, int, int] | None"  # of the call, when it is in the checked file
    doubt: str  # "" when the call surely shares the array's memory, else what it depends on
    scope: ast.AST  # the function (or module) the tensor was made in


@dataclass(eq=False)
class LeafUse:
    """In a graph: its backward accumulates a gradient into this leaf group."""

    group: Group


@dataclass(eq=False, slots=True)
class Save:
    """A tensor saved for backward by an op, at a given version of its group."""

    group: Group
    version: int  # len(group.writes) when saved
    seq: int
    path: Path
    op: str
    role: str  # "output" | "input" | "weight" | ...
    label: str  # the saved tensor's name at the save
    line: int
    column: int
    certain: bool
    end_line: int = 0
    end_column: int = 0
    operand: tuple | None = None  # (line, column, end_line, end_column) of the saved input's expression in the op
    clonable: bool = False  # `.clone()` at the save is exact (see `fixinplace.facts.SavedBy.clonable`)
    file: str = ""  # the project file the op is in, when not the checked file ("" for the checked file)
    device: str | None = None  # the op saves it on this device only ("cuda": a cuDNN kernel); None: on every one
    # An uncertain save: the facts it waits for that the file does not show (grad mode where the op runs; the
    # inputs whose requires-grad is unknown and decides it). `report.py` words them.
    grad_mode_unknown: bool = False
    inputs_unknown: tuple = ()
    stmts: tuple = ()  # the statements being run when it was saved, outermost first (callers' included)
    autocast_unknown: "AutocastDoubt | None" = None  # an autocast region may make it a cast copy: why


@dataclass(eq=False, slots=True)
class Write:
    """An in-place write (a version bump, or a silent change of values)."""

    group: Group
    seq: int
    path: Path
    site: "Site"
    certain: bool  # False when the written value only may alias the group
    silent: bool  # no version bump (`.data`, fused optimizer): wrong gradient, no error
    label: str  # what was written, as the user wrote it
    allowed: bool = False  # under allow_mutation_on_saved_tensors(): autograd clones on write
    stmts: tuple = ()  # the statements being run when it happened, outermost first (callers' included)
    via: str = ""  # a silent write through an alias (`data`, `numpy`), or to the tensor an alias shares (`base`)
    maybe_not_tensor: bool = False  # nothing showed the written value is a tensor (an unannotated argument)


@dataclass(slots=True)
class SiteSetting:
    """What a write site shows when it is first seen: what it writes, where it stands, how it runs. Each field is
    the `fixinplace.facts.WriteFacts` field of its name, with its default (a site seen without a frame, such as an
    optimizer step, keeps the defaults)."""

    target: str = ""  # the written expression (`x`, `h[0]`, `self.w.t()`)
    root: str = ""  # the variable it goes back to (`x`, `h`, `self.w`)
    root_kind: str = "other"  # local | argument | global | attribute | element | other
    read_after: bool = True  # the root name may be read after the write
    argument_private: bool = False  # an argument no caller in the file can see written
    returns_other: bool = False  # an argument whose function returns something else than it
    chain: tuple[str, ...] = ()  # the in-place methods of a chain of them on the root (`x.sub_(m).div_(s)`)
    chain_exact: bool = False  # every operand of the chain keeps the root's dtype
    chain_promotes: bool = False  # an operand of the chain is known to have another dtype than the root
    operands: tuple[Operand, ...] = ()  # the other operands of the write
    statement: Optional[Statement] = None  # the statement the write stands in
    grad_mode: GradMode = GradMode.ON  # where the write runs
    grad_on_line: int = 0  # under no_grad: the `with` statement that turned grad mode off
    index_kind: str = ""  # subscript writes: basic | advanced | unknown
    index_text: str = ""  # subscript writes: the index expression
    index_parts: tuple[str, ...] = ()  # subscript assignments: the kind of each index part
    module_ctor: Optional[Span] = None  # inplace_module: the constructor call with inplace=True
    inplace_literal: Optional[Span] = None  # inplace_module: the literal `True` the flag came from
    module_condition: str = ""  # inplace_module: the constructor parameters that, at 0, stop the write
    extra: tuple[tuple[str, str], ...] = ()  # rule-specific details: (name, text) pairs (fused, library)


@dataclass(slots=True)
class SiteRuns:
    """What the abstract executions of a write site wrote, accumulated over them: each field but `known_target`
    is the `fixinplace.facts.WriteFacts` field of its name (None: no execution wrote a tensor yet)."""

    aliased: bool = False  # in some run another name or view shared the written tensor
    target_is_tensor: Optional[bool] = None  # in every run the written value was surely a tensor (not an array)
    target_dtype: Optional[str] = None  # the dtype every run wrote ("" when unknown or when runs differ)
    through_view: bool = False  # in some run the written value was a view of another tensor
    through_detach: bool = False  # in some run it was `y.detach()` (or a view of it), which writes `y`'s storage
    target_unknown: bool = False  # a run wrote an unseen caller's tensor, and no run showed where it comes from
    known_target: bool = False  # some run wrote a tensor whose provenance the file shows
    leaf_kind: str = ""  # for a leaf that requires grad: where it comes from (param, fresh, arg, ...)
    after_backward: bool = False  # in some run that leaf already had a .grad (an update after a backward)
    shares_array: Optional[Span] = None  # FIP105: the call that made the tensor share a NumPy array's memory
    raises_always: Optional[bool] = None  # every run wrote a leaf that requires grad, in grad mode: each raised
    # a write to a container's element: in every run only the container held the tensor, a local list of the
    # writing function, and the tensor was made there (`fixinplace.analysis.holders.element_private`)
    element_private: Optional[bool] = None


@dataclass(eq=False, slots=True)
class Site:
    """The source location of one in-place write, shared by every abstract execution of it."""

    node: ast.AST
    form: WriteForm  # (text such as "method" is taken as its member)
    op: str  # add_, __setitem__, relu_, step, ...
    text: str  # source text of the write
    setting: SiteSetting = field(default_factory=SiteSetting)
    runs: SiteRuns = field(default_factory=SiteRuns)
    optimizer: object = None  # for an optimizer step: the OptimizerValue

    def __post_init__(self) -> None:
        self.form = WriteForm(self.form)


class Value:
    """Any abstract value."""

    is_tensor: Tri = False


@dataclass(eq=False)
class TensorValue(Value):
    """A tensor (or a value that may be one, with is_tensor None)."""

    group: Group
    rg: Tri  # requires grad
    leaf_rg: Tri  # writing it in grad mode raises the leaf error (a leaf requiring grad, or a view of one)
    graph: frozenset  # the Saves its backward needs
    label: str
    maybe_groups: tuple = ()  # groups it may alias (uncertain)
    is_tensor: Tri = True
    owner: str = ""  # for parameters: "`weight` of `fc`"
    view: bool = False  # a view of another tensor (`x.view(...)`, `x[0]`, `x.t()`), not that tensor itself
    detached: bool = False  # `x.detach()`: another tensor object over x's storage and version counter
    # One of the views an op returns several of (`unbind`, `split`, `chunk`, and what unpacking their result or a
    # `single` tensor that requires grad gives), or a view of one: the op's name. Autograd refuses to let such a
    # view be written in place once it requires grad.
    multi_output_of: str = ""
    # ... and it surely is one: the op's output itself, an element or a basic index of it, its `.T`. After another
    # op (`reshape`, `t()`, `view`) it may be a copy, depending on the layout the analysis does not know.
    multi_output_sure: bool = False
    # A view made while grad mode was off of a tensor that requires grad (or a view of such a view): autograd refuses
    # to let it be written in place once grad mode is on. None: its base may require grad.
    made_without_grad: Tri = False
    # Surely one tensor: what an op or a torch layer the table measured returning one tensor returned, or a view of
    # it. (What the analysis holds as one tensor may be a tuple: `out, weights = attn(x, x, x)`.)
    single: bool = False
    # How many tensors a torch layer's result holds, as the table measured it (0: not known): unpacked into as
    # many names, each one is surely one tensor (`out, h = rnn(x, h)`; not LSTM's `out, (h, c)`, whose 3 tensors
    # are nested).
    outputs: int = 0
    dtype: Optional[str] = None  # "float32", "bool", ... where the analysis knows it (`fixinplace.analysis.dtypes`)
    # After a branch: the arms on which the value is a given group (id of the group -> the path entries), for a
    # group it is on some arms only (`x = conv(x)`, then `if use_bn: x = bn(x)`: the conv output only when
    # `use_bn` is false). A write or a save through the value then happens on those arms only.
    group_arms: Optional[dict] = None
    # After a branch, the same for the saves of its graph that only some arms made (id of the Save -> the path
    # entries): `if c: loss = f(x)` keeps an earlier iteration's loss on the other arm, whose saves a backward on
    # the arm that made the new one never needs.
    graph_arms: Optional[dict] = None

    def view_named(self, label: str, grad_mode: Tri = None, **changes: object) -> "TensorValue":
        """A view of this tensor (its version counter, its graph) named `label`, made in `grad_mode` (None: not known
        where it is made): what autograd remembers of how a view was made (`multi_output_of`, `made_without_grad`)
        carries over to it. `changes`: fields that differ (an op's requires-grad and graph, say)."""
        fields = dict(group=self.group, rg=self.rg, leaf_rg=self.leaf_rg, graph=self.graph, label=label,
                      maybe_groups=self.maybe_groups, is_tensor=self.is_tensor, view=True, dtype=self.dtype,
                      multi_output_of=self.multi_output_of, multi_output_sure=self.multi_output_sure,
                      made_without_grad=self.view_made_without_grad(grad_mode), single=self.single)
        fields.update(changes)
        return TensorValue(**fields)

    def view_made_without_grad(self, grad_mode: Tri) -> Tri:
        """`made_without_grad` of a view of this tensor made in `grad_mode`."""
        if grad_mode is not False:
            return self.made_without_grad
        return tri_or(self.made_without_grad, self.rg)

    def all_groups(self) -> list[tuple[Group, bool]]:
        """(group, certain) pairs this value may write."""
        return [(self.group, True)] + [(g, False) for g in self.maybe_groups if g is not self.group]

    def arm_path(self, group: "Group") -> tuple:
        """The branch arms on which this value is `group` (path entries to add to an event's path), or ()."""
        return self.group_arms.get(id(group), ()) if self.group_arms else ()


class _NoConstant:
    """The constant of a scalar whose value the analysis does not know."""

    def __repr__(self) -> str:
        return "NO_CONSTANT"


NO_CONSTANT = _NoConstant()


@dataclass(eq=False)
class ScalarValue(Value):
    """A Python number, bool, string or None: never a tensor.

    `kind` says which when known ("number", "bool", "str", "none"; "" when not known); `constant` is the value
    itself when the analysis knows it (a literal, or what is computed from literals), else NO_CONSTANT. Known
    constants decide branches: `if self.mode == "shortcut":` with `mode="original"` passed to `__init__`."""

    kind: str = ""
    constant: object = NO_CONSTANT
    is_main: bool = False  # `__name__`, whose value is "__main__" when the file runs as a script
    is_range: bool = False  # a `range(...)`: iterating it gives numbers
    truth_known: Tri = None  # the truth of a condition whose value is not kept (`__name__ == "__main__"`)
    is_tensor: Tri = False
    origin: "ast.Constant | None" = None  # the literal it was written as, where the value came from one

    @property
    def known(self) -> bool:
        """Whether the value itself is known."""
        return self.constant is not NO_CONSTANT

    @property
    def truth(self) -> Tri:
        """`bool(value)` when known."""
        if self.known:
            try:
                return bool(self.constant)
            except Exception:  # noqa: BLE001  (a constant is a literal: this does not happen)
                return None
        return self.truth_known

    @property
    def is_none(self) -> bool:
        return self.kind == "none"

    @property
    def is_str(self) -> bool:
        return self.kind == "str"

    @property
    def is_number(self) -> bool:
        """An int, float or complex (not a bool): known not to be None."""
        return self.kind == "number"


def constant_value(value: object) -> "ScalarValue":
    """The abstract value of a literal (strings, numbers, booleans, None); other constants are plain scalars."""
    if value is None:
        return ScalarValue(kind="none", constant=None)
    if isinstance(value, bool):
        return ScalarValue(kind="bool", constant=value)
    if isinstance(value, (int, float, complex)):
        return ScalarValue(kind="number", constant=value)
    if isinstance(value, str):
        return ScalarValue(kind="str", constant=value)
    return ScalarValue()


def known_int(value: object) -> int | None:
    """The int an abstract value is known to be (an index, a bound, a count), else None (bools are not ints here)."""
    if isinstance(value, ScalarValue) and value.is_number and isinstance(value.constant, int):
        return value.constant
    return None


def known_key(value: object) -> str | int | None:
    """The dict key an abstract value is known to be (a str or an int, a literal or computed), else None."""
    if isinstance(value, ScalarValue) and value.known and isinstance(value.constant, (str, int)):
        return value.constant
    return None


def known_str(value: object) -> str | None:
    """The str an abstract value is known to be (a name, a key, a format), else None."""
    if isinstance(value, ScalarValue) and value.is_str and value.known:
        return value.constant  # type: ignore[return-value]
    return None


def truth_value(truth: Tri) -> "ScalarValue":
    """A bool whose value is `truth` (unknown when None)."""
    return ScalarValue(kind="bool") if truth is None else ScalarValue(kind="bool", constant=truth)


_COMPARISONS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
    ast.Is: operator.is_, ast.IsNot: operator.is_not,
}


def constant_of(value: object) -> object:
    """The Python value an abstract value stands for (a known scalar, or a tuple/list of them), or NO_CONSTANT."""
    if isinstance(value, ScalarValue):
        return value.constant
    if isinstance(value, SeqValue) and not value.imprecise and not value.open_ended:
        items = [constant_of(item) for item in value.items]
        return NO_CONSTANT if any(item is NO_CONSTANT for item in items) else tuple(items)
    return NO_CONSTANT


def compare_constants(ops: list, values: list) -> Tri:
    """The result of a comparison (`a == b`, `a not in (x, y)`, `a < b < c`) whose operands are all known."""
    constants = [constant_of(v) for v in values]
    if any(c is NO_CONSTANT for c in constants):
        return None
    for op, left, right in zip(ops, constants, constants[1:]):
        compare = _COMPARISONS.get(type(op))
        if compare is None:
            return None
        if isinstance(op, (ast.Is, ast.IsNot)) and not any(c is None or isinstance(c, bool) for c in (left, right)):
            return None  # identity of other literals is an implementation detail
        try:
            result = compare(left, right)
        except Exception:  # noqa: BLE001  (`"a" < 1`: a TypeError at run time, not decided here)
            return None
        if not isinstance(result, bool):
            return None
        if not result:
            return False
    return True


_ARITHMETIC = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
               ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv}


_LOGICAL = {ast.BitOr: operator.or_, ast.BitAnd: operator.and_, ast.BitXor: operator.xor}


def fold_binop(op: ast.operator, left: "ScalarValue", right: "ScalarValue") -> "ScalarValue":
    """`left op right` for two known numbers (or `+` of two strings); the kind alone when not computable."""
    kind = left.kind if left.kind == right.kind and left.kind in ("number", "str") else ""
    if kind == "number" and left.known and right.known and type(op) in _ARITHMETIC:
        try:
            result = _ARITHMETIC[type(op)](left.constant, right.constant)
        except (ArithmeticError, TypeError):
            return ScalarValue(kind="number")
        if isinstance(result, (int, float)) and abs(result) < 1e15:
            return ScalarValue(kind="number", constant=result)
    if left.kind == right.kind == "bool" and left.known and right.known and type(op) in _LOGICAL:
        return ScalarValue(kind="bool", constant=bool(_LOGICAL[type(op)](left.constant, right.constant)))
    if kind == "str" and left.known and right.known and isinstance(op, ast.Add) \
            and len(left.constant) + len(right.constant) <= 256:  # type: ignore[arg-type]
        return ScalarValue(kind="str", constant=left.constant + right.constant)  # type: ignore[operator]
    return ScalarValue(kind=kind)


def join_scalars(a: "ScalarValue", b: "ScalarValue") -> "ScalarValue":
    """What two scalars have in common: the constant when both hold the same one, the kind when it is shared."""
    if a.kind == b.kind and a.known and b.known and type(a.constant) is type(b.constant) \
            and a.constant == b.constant:
        return a
    if a.kind == b.kind and a.truth_known == b.truth_known and not a.known and not b.known \
            and a.is_main == b.is_main and a.is_range == b.is_range:
        return a
    kind = a.kind if a.kind == b.kind else ""
    truth = a.truth if a.truth == b.truth else None
    return ScalarValue(kind=kind, truth_known=truth)


@dataclass(eq=False)
class UnknownValue(Value):
    """Nothing is known (not even whether it is a tensor); writes to it are not tracked."""

    is_tensor: Tri = None
    array: bool = False  # a NumPy array (what `np.zeros`, `np.load`, ... return), whatever its content


@dataclass(eq=False)
class SeqValue(Value):
    """A tuple or list with known items.

    `imprecise`: which item is where depends on the path taken (items appended under a branch); `open_ended`:
    built in a loop the analysis cannot count, so the items are the first ones, in order, and more may follow."""

    items: list
    imprecise: bool = False
    open_ended: bool = False
    is_tensor: Tri = False

    def item_at(self, index: int | None) -> "Value | None":
        """The item at a known index, when the analysis knows which one it is."""
        if self.imprecise or index is None:
            return None
        if 0 <= index < len(self.items) or (not self.open_ended and -len(self.items) <= index < 0):
            return self.items[index]
        return None


@dataclass(eq=False)
class DictValue(Value):
    """A dict whose keys are constants known to the analysis."""

    items: dict
    is_tensor: Tri = False


@dataclass(eq=False)
class ModuleNamespace(Value):
    """A module of the checked file's own project (`import models`): its scope, as the analysis ran it."""

    name: str
    env: dict


@dataclass(eq=False)
class LazyImport(Value):
    """A name imported from a module of the project, loaded when the analysis first uses it (a package's
    `__init__` imports many modules; a file uses a few of them)."""

    importer: object  # the file that imports (a pathlib.Path)
    dotted: str
    level: int
    name: str | None  # None: the module itself (`import models`)
    fallback: Value  # the name as a library name, when the module cannot be loaded
    resolved: Value | None = None  # what it stands for, once loaded


@dataclass(eq=False)
class QualName(Value):
    """A reference to an importable name, e.g. `torch.nn.functional.relu`."""

    name: str


@dataclass(eq=False)
class MethodRef(Value):
    """`receiver.name`, before it is called."""

    receiver: Value
    name: str


@dataclass(eq=False)
class ModuleValue(Value):
    """An instance of a `torch.nn` module class (from the table), or a container of modules."""

    kind: str  # class name: Linear, ReLU, Sequential, ...
    label: str
    line: int
    params: dict = field(default_factory=dict)  # name -> TensorValue
    buffers: dict = field(default_factory=dict)  # name -> TensorValue
    children: list = field(default_factory=list)  # for Sequential / ModuleList / ModuleDict
    keys: list = field(default_factory=list)  # for ModuleDict: the name of each child, in order
    counted: bool = True  # a container whose number of children is known (not built from or grown by unknowns)
    inplace: bool = False
    training: Tri = True
    entry: object = None  # optable.ModuleEntry
    node: ast.AST | None = None  # the constructor call
    constructor: dict = field(default_factory=dict)  # constructor parameter name -> the value passed
    maybe_absent: bool = False  # added to a list of layers under a branch: a container may not hold it
    # Where `inplace=True` came from when no literal at the constructor says it (`nn.Dropout(p, **params)` with
    # `params = {"inplace": inplace}`): the literal `True` it was written as (a default, a keyword of a call).
    inplace_origin: "ast.Constant | None" = None

    def named(self) -> list[tuple[str, Value]]:
        """(name, item) of a container that holds its items by name, in order: a `ModuleDict`'s layers, a
        `ParameterList`'s or `ParameterDict`'s parameters ("0", "1", ... for a list)."""
        if self.kind == "ModuleDict":
            return list(zip(self.keys, self.children))
        return [(key, self.params.get(key, UNKNOWN)) for key in self.keys]

    def item(self, key: str) -> Value | None:
        """The item held under a name (`named`), or None."""
        return next((value for name, value in self.named() if name == key), None)


@dataclass(eq=False)
class OptimizerValue(Value):
    """A `torch.optim` optimizer over known parameter tensors."""

    kind: str
    label: str
    params: list  # TensorValues
    fused: bool
    params_label: str  # e.g. "the parameters of `D`"
    groups: list = field(default_factory=list)  # the param groups it was given (DictValues), when given as such

    def param_groups(self) -> "SeqValue":
        """`optimizer.param_groups`: the groups it was given, else one group holding every parameter."""
        return SeqValue(list(self.groups) or [DictValue({"params": SeqValue(list(self.params))})])


@dataclass(eq=False)
class FrameworkValue(Value):
    """An object of a training framework the analysis models by its import (`calls/frameworks.py`): AMP's
    `GradScaler` ("grad_scaler") or Accelerate's `Accelerator` ("accelerator"); or the `ctx` of a custom
    `autograd.Function`'s forward ("autograd_ctx", `calls/autograd_functions.py`), with what it saved."""

    kind: str
    label: str
    saved: list = field(default_factory=list)


@dataclass(eq=False)
class DistributionValue(Value):
    """A `torch.distributions` object (`Normal(mean, std)`): no tensor; its methods compute new tensors from the
    tensors it was built from (`calls/distributions.py`)."""

    kind: str  # Normal, Categorical, ...
    label: str
    inputs: list  # TensorValues


@dataclass(eq=False)
class GradModeCtx(Value):
    """`torch.no_grad()`, `torch.enable_grad()`, `torch.inference_mode()`, `set_grad_enabled(b)`."""

    enabled: Tri
    applies_now: bool = False  # `torch.set_grad_enabled(b)` also switches grad mode as a plain call


@dataclass(frozen=True, slots=True)
class AutocastDoubt:
    """Why a save in an autocast region may be a cast copy, which the file does not show: the region may be off
    ("off"), runs on a device the table did not measure autocast on ("device"), or the input may already have the
    region's dtype ("dtype"). `fixinplace.rules.wording` words it."""

    reason: str
    line: int  # the region's `with` (or decorator) line, 0 when not known
    label: str  # the saved tensor
    op: str
    device: str | None = None  # the region's, when it names one autocast was not measured on
    dtype: str | None = None


@dataclass(frozen=True, slots=True)
class AutocastEffect:
    """What an autocast region does to a tensor an op keeps (`autocast_copy`)."""

    copy: bool  # what the op keeps is a cast copy: nothing of the caller's is saved
    doubt: "AutocastDoubt | None"  # why it may be one, which the file does not show
    device: str | None  # the one device the caller's tensor is kept on, if one


@dataclass(eq=False)
class AutocastCtx(Value):
    """`torch.autocast(device_type, dtype=..., enabled=...)` and its spellings (`torch.amp.autocast`,
    `torch.cuda.amp.autocast()`, `torch.cpu.amp.autocast()`): inside it, the ops the table measured as casting
    keep cast copies of their float32 inputs. None where the call does not say (a device chosen at run time)."""

    device: str | None
    dtype: str | None
    enabled: Tri
    line: int = 0  # the `with` statement that entered it

    def key(self) -> tuple:
        """What decides its effect (part of a call's summary key)."""
        return self.device, self.dtype, self.enabled


@dataclass(eq=False)
class AllowMutationCtx(Value):
    """`torch.autograd.graph.allow_mutation_on_saved_tensors()`: writes clone the saved values."""


@dataclass(eq=False)
class FunctionValue(Value):
    """A function defined in the analysed file."""

    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
    qualname: str
    env: dict  # the defining scope (closure), read-only
    grad_mode: Tri = None  # forced by a decorator
    autocast: "AutocastCtx | None" = None  # an autocast region its decorator opens around it
    kind: str = "function"  # function | staticmethod | classmethod | property
    owner_class: "ClassValue | None" = None  # the class a method is defined in
    defaults: tuple = ()  # the values of its positional defaults, evaluated where it is defined (as Python does)
    kw_defaults: tuple = ()  # the values of its keyword-only defaults (None where there is none)


@dataclass(eq=False)
class ClassValue(Value):
    """A class defined in the analysed file."""

    node: ast.ClassDef
    name: str
    bases: list
    attrs: dict  # class-level names: methods (FunctionValue) and constants
    is_module: bool  # subclasses torch.nn.Module
    autograd_function: bool = False  # subclasses torch.autograd.Function


# Where an instance of a class subclassing `nn.Sequential` / `nn.ModuleList` keeps the container its
# `super().__init__(*layers)` built (not an identifier: no attribute of user code can clash with it).
CONTAINER_ATTR = "<container>"
# Likewise, an instance of a class subclassing a `torch.nn` layer (`class Conv2d(nn.Conv2d)`) keeps the layer its
# `super().__init__(...)` built: `super().forward(x)` applies it.
LAYER_ATTR = "<layer>"


@dataclass(eq=False)
class InstanceValue(Value):
    """An instance of a class defined in the analysed file."""

    cls: ClassValue
    label: str
    attrs: dict = field(default_factory=dict)
    training: Tri = True


@dataclass(eq=False)
class PartialValue(Value):
    """`functools.partial(func, *args, **kwargs)`: calling it calls `func` with those arguments first."""

    func: Value
    args: list
    kwargs: dict


@dataclass(eq=False)
class BoundMethod(Value):
    """`instance.method` for a method defined in the analysed file."""

    instance: Value
    function: FunctionValue


@dataclass(eq=False)
class ParamsValue(Value):
    """`model.parameters()` and friends: a known list of parameter tensors."""

    params: list
    label: str


UNKNOWN = UnknownValue()
SCALAR = ScalarValue()
