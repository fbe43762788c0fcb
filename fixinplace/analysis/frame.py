"""The shared state of the abstract interpreter, one way down from it.

`Frame` is one abstract function activation; `join_values`/`join_envs` say what a name holds where two paths meet;
the limits bound the work per file; `Evaluator` is what op and call handling (the calls/ package, moves.py) may ask
of the interpreter. interpreter.py builds on this module and on calls/; calls/ and moves.py use only this module,
values.py and summaries.py (which uses values.py only), so the import graph has no cycle.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Protocol

from fixinplace.analysis.report import Reporter
from fixinplace.analysis.summaries import CallMemo
from fixinplace.analysis.values import (
    UNKNOWN,
    AutocastCtx,
    ClassValue,
    FunctionValue,
    LazyImport,
    Path,
    ScalarValue,
    TensorValue,
    Tri,
    Value,
    join_scalars,
    tri_join,
)

MAX_INLINE_DEPTH = 5
# Building a model nests constructors deeper than calls nest elsewhere (model -> encoder -> layer -> attention ->
# projection), and what `__init__` builds is what every later call uses: inside a constructor, calls go deeper.
MAX_CONSTRUCT_DEPTH = 10
MAX_LOOP_PASSES = 3  # passes over a loop body the analysis cannot unroll
MAX_UNROLL = 16
# A loop over a model's modules (`for m in self.modules(): if isinstance(m, nn.Dropout): m.inplace = True`, weight
# inits) runs once per module, so that each module keeps its own kind and flags: a model has hundreds.
MAX_MODULE_UNROLL = 256
STEP_BUDGET = 400_000  # abstract statement executions per file; beyond it calls stop being inlined


@dataclass
class Frame:
    """The state of one abstract function activation."""

    env: dict
    globals: dict
    grad_mode: Tri = True
    allow_mutation: bool = False
    path: Path = ()
    function: str = "<module>"
    unknown_context: bool = False
    depth: int = 0
    depth_limit: int = MAX_INLINE_DEPTH  # calls from this frame run inlined while `depth` is below it
    returns: list = field(default_factory=list)
    loop_tags: tuple = ()
    param_values: dict = field(default_factory=dict)  # what each parameter was bound to on entry
    mutates_on_request: bool = False  # an API with an `inplace` parameter, or named like `uniform_`
    no_grad_stmt: ast.AST | None = None  # the `with` statement that turned grad mode off around this point
    autocast: "AutocastCtx | None" = None  # the autocast region this point runs in (an enabled one, or maybe)
    owner: ClassValue | None = None  # the class of the method running
    self_value: Value | None = None  # the instance the method runs on (inlined calls)
    # Writes to a NumPy array this function got as an argument (`torch.from_numpy(x)` written in place), left for
    # the caller to judge: (argument name, site, label, ArraySource, certain).
    array_writes: list = field(default_factory=list)
    # Whether names bound here give tensors their display name: not a comprehension's variable (`for l in
    # laterals`), which stands for each element in turn.
    names_tensors: bool = True

    def lookup(self, name: str) -> Value | None:
        """A name from the local scope, then the module scope."""
        if name in self.env:
            return self.env[name]
        return self.globals.get(name)


def join_values(a: Value | None, b: Value | None) -> Value:
    """The value a name holds after two paths merge."""
    if a is None:
        return b if b is not None else UNKNOWN
    if b is None or a is b:
        return a
    if isinstance(a, TensorValue) and isinstance(b, TensorValue):
        groups = tuple(g for g, _ in b.all_groups()) + a.maybe_groups
        return TensorValue(
            group=a.group,
            rg=tri_join(a.rg, b.rg),
            leaf_rg=tri_join(a.leaf_rg, b.leaf_rg),
            graph=a.graph | b.graph,
            label=a.label,
            maybe_groups=tuple(dict.fromkeys(g for g in groups if g is not a.group)),
            is_tensor=tri_join(a.is_tensor, b.is_tensor),
            dtype=a.dtype if a.dtype == b.dtype else None,
        )
    if isinstance(a, ScalarValue) and isinstance(b, ScalarValue):
        return join_scalars(a, b)
    if isinstance(a, TensorValue) and not isinstance(b, TensorValue):
        return maybe_tensor(a)
    if isinstance(b, TensorValue):
        return maybe_tensor(b)
    return UNKNOWN


def maybe_tensor(t: TensorValue) -> TensorValue:
    """The same tensor facts, but it may not be a tensor on every path (writes become uncertain)."""
    return TensorValue(t.group, t.rg, t.leaf_rg, t.graph, t.label, t.maybe_groups, None, t.owner, dtype=t.dtype)


def join_envs(a: dict, b: dict) -> dict:
    """Merge two scopes after a branch."""
    out = dict(a)  # a name bound on one path only keeps that value (join_values with None)
    for name, value in b.items():
        mine = out.get(name)
        if mine is not value:  # most names hold the same value on both paths
            out[name] = join_values(mine, value)
    return out




class Evaluator(Protocol):
    """What op and call handling asks of the interpreter that runs the file."""

    tree: ast.Module
    source: str
    statements: list[ast.stmt]  # the statements being run, outermost first
    call_stack: list[ast.AST]  # the function definitions being run, outermost first
    inlined: set[int]  # ids of function definitions run with known arguments
    steps: int  # abstract statement executions so far
    uninlined_grad_modes: dict[int, set]  # id of a function definition -> grad modes of calls not inlined
    unresolved_method_modes: dict[str, set]  # method name -> grad modes of calls whose receiver is not known
    report: Reporter
    loading: list  # the project modules whose top level is running (innermost last)
    defined: list[FunctionValue]  # every function definition run, in order
    memo: CallMemo  # summaries of calls per calling context
    default_float: str | None  # the dtype of new floating tensors, None where the file may change it

    @property
    def current_statement(self) -> ast.stmt | None: ...

    @property
    def current_scope(self) -> ast.AST: ...

    def eval(self, node: ast.AST | None, frame: Frame) -> Value: ...

    def assign(self, target: ast.AST, value: Value, frame: Frame, stmt: ast.AST) -> None: ...

    def exec_block(self, body: list[ast.stmt], frame: Frame) -> bool: ...

    def block_of(self, stmt: ast.AST) -> tuple[list[ast.stmt], int] | None: ...

    def eval_only(self, path: Path) -> bool: ...

    def iteration_items(self, iterable: Value) -> list | None: ...

    def element_value(self, iterable: Value, items: list | None) -> Value: ...

    def lookup_class_attr(self, cls: ClassValue, name: str) -> Value | None: ...

    def tensors_in(self, value: Value) -> list[TensorValue]: ...

    def text(self, node: ast.AST) -> str: ...

    def resolve_lazy(self, lazy: LazyImport) -> Value: ...

    def mutates_on_request(self, fn: FunctionValue) -> bool: ...
