"""An abstract interpreter over Python's `ast` that tracks tensors, saves and in-place writes.

It runs module-level code as written, inlines calls to functions, classes and `nn.Module.forward` defined in the
same file (bounded depth), follows both arms of branches (events in different arms never interact) and runs loop
bodies twice (so that a write in one iteration meets the backward of the next). Functions that nothing in the
file calls are then run once with unknown arguments, and what they return is treated as headed for a backward.
Facts about ops (what they save, which return views) come from the generated table (`fixinplace.optable`).
"""

from __future__ import annotations

import ast
import builtins
from collections import ChainMap, Counter
from dataclasses import replace
from pathlib import Path as FilePath
from typing import Any

from fixinplace.analysis import calls, dtypes, project, strings
from fixinplace.analysis.callers import runs_own_backward
from fixinplace.analysis.calls.frameworks import entry_grad_mode
from fixinplace.analysis.frame import (
    MAX_CONSTRUCT_DEPTH,
    MAX_LOOP_PASSES,
    MAX_MODULE_UNROLL,
    MAX_UNROLL,
    Frame,
    join_envs,
    join_values,
)
from fixinplace.analysis.moves import block_index
from fixinplace.analysis.report import Reporter
from fixinplace.analysis.summaries import CallMemo
from fixinplace.analysis.training import CallMode, context_name, eval_arm, self_calls
from fixinplace.analysis.values import (
    CONTAINER_ATTR,
    SCALAR,
    UNKNOWN,
    AllowMutationCtx,
    AutocastCtx,
    ClassValue,
    DictValue,
    FunctionValue,
    GradModeCtx,
    Group,
    InstanceValue,
    LazyImport,
    ModuleNamespace,
    ModuleValue,
    OptimizerValue,
    ParamsValue,
    QualName,
    ScalarValue,
    SeqValue,
    TensorValue,
    Tri,
    Value,
    compare_constants,
    constant_value,
    next_seq,
    truth_value,
)
from fixinplace.lines import shared_byte_lines
from fixinplace.rules.wording import shorten

_TENSOR_NAMES = {"Tensor", "torch.Tensor", "Parameter", "nn.Parameter", "torch.nn.Parameter", "TensorType"} | {
    f"{prefix}{kind}Tensor" for prefix in ("", "torch.")
    for kind in ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
}
_SCALAR_NAMES = {"int", "float", "bool", "str", "bytes", "complex", "None"}


_ANNOTATED_NAMES = {"Annotated", "typing.Annotated", "typing_extensions.Annotated"}
# jaxtyping's array annotations: Float[Tensor, "b c"] is a tensor whatever its dtype/shape string.
_JAXTYPING_NAMES = {"Float", "Int", "Bool", "Shaped", "Num", "Real", "Inexact", "Integer", "UInt", "Complex",
                    "Float16", "Float32", "Float64", "BFloat16", "Int8", "Int16", "Int32", "Int64", "UInt8"}


# (interpreter class, node type) -> its `expr_*` / `stmt_*` method (None: none), filled as nodes are met.
_HANDLERS: dict[tuple[type, type], Any] = {}
_MISSING = object()


def unparsed(node: ast.AST) -> str:
    """`ast.unparse(node)`, kept on the node: the analysis asks it of the same targets on every pass and call, and
    trees are never modified."""
    text = getattr(node, "_fixinplace_unparsed", None)
    if text is None:
        text = node._fixinplace_unparsed = ast.unparse(node)  # type: ignore[attr-defined]
    return text


def _strip_optional(node: ast.AST) -> ast.AST:
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in ("Optional", "typing.Optional"):
        return _strip_optional(node.slice)
    if isinstance(node, ast.Subscript) and ast.unparse(node.value) in _ANNOTATED_NAMES:
        inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
        return _strip_optional(inner)
    if (isinstance(node, ast.Subscript) and ast.unparse(node.value).rpartition(".")[2] in _JAXTYPING_NAMES
            and isinstance(node.slice, ast.Tuple) and node.slice.elts
            and ast.unparse(node.slice.elts[0]) in _TENSOR_NAMES):
        return node.slice.elts[0]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        for side in (node.left, node.right):
            if not (isinstance(side, ast.Constant) and side.value is None):
                return _strip_optional(side)
    return node


def annotation_kind(annotation: ast.AST | None) -> str:
    """`tensor`, `scalar`, `scalars` (a tuple or list of numbers), `container` (list[Tensor], dict, ...) or
    `unknown`, from a parameter annotation."""
    if annotation is None:
        return "unknown"
    node = _strip_optional(annotation)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = _strip_optional(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return "unknown"
    text = ast.unparse(node)
    if text in _TENSOR_NAMES:
        return "tensor"
    if text in _SCALAR_NAMES:
        return "scalar"
    if isinstance(node, ast.Subscript) and _names_only_scalars(node.slice):
        return "scalars"
    if isinstance(node, ast.Subscript) or text in ("list", "dict", "tuple", "set", "List", "Dict", "Tuple"):
        return "container"
    return "unknown"


def _names_only_scalars(node: ast.AST) -> bool:
    """Whether a subscript's types are all Python scalars (`Tuple[int, int]`, `list[float]`, `tuple[int, ...]`)."""
    items = node.elts if isinstance(node, ast.Tuple) else [node]
    return bool(items) and all(
        (isinstance(item, ast.Constant) and item.value is Ellipsis)
        or (isinstance(item, ast.Name) and item.id in _SCALAR_NAMES - {"None"}) for item in items)


def literal_default(default: ast.expr | None) -> str | None:
    """The kind ("number", "bool", "str") of a parameter's literal default (`0.5`, `-1`, `True`, `"mean"`), else
    None (`None` as a default says nothing of what callers pass)."""
    if isinstance(default, ast.UnaryOp) and isinstance(default.op, (ast.USub, ast.UAdd)):
        default = default.operand
    if not isinstance(default, ast.Constant) or default.value is None or isinstance(default.value, bytes):
        return None
    kind = constant_value(default.value).kind
    return kind or None


def _takes_inplace(args: ast.arguments) -> bool:
    return any(a.arg == "inplace" for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])


def _is_str_annotation(annotation: ast.AST | None) -> bool:
    return annotation is not None and ast.unparse(_strip_optional(annotation)) == "str"


_DECISION_NODES = (ast.Name, ast.Attribute, ast.Constant, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.BinOp,
                   ast.Subscript, ast.Tuple, ast.List, ast.Slice, ast.expr_context, ast.operator, ast.boolop,
                   ast.unaryop, ast.cmpop)


def _decision_reads(test: ast.expr) -> set[str] | None:
    """The names and attribute chains a branch test reads (`i`, `self.delay`), when it reads nothing else: no call,
    so that evaluating it twice with the same bindings gives the same truth; None otherwise."""
    reads: set[str] = set()
    for node in ast.walk(test):
        if not isinstance(node, _DECISION_NODES):
            return None
        if isinstance(node, ast.Name):
            reads.add(node.id)
        elif isinstance(node, ast.Attribute):
            reads.add(ast.unparse(node))
    return reads or None


def _binds_any(stmt: ast.stmt, reads: set[str]) -> bool:
    """Whether a statement (its nested blocks too) may rebind a name or attribute chain of `reads`, or a base of
    one (`self.cfg = ...` rebinds `self.cfg.delay`)."""
    for node in ast.walk(stmt):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            return True
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound = node.id
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and not isinstance(node.ctx, ast.Load):
            bound = ast.unparse(node if isinstance(node, ast.Attribute) else node.value)  # `cfg["k"] = v`: cfg
        else:
            continue
        if any(read == bound or read.startswith(bound + ".") for read in reads):
            return True
    return False


def same_decisions(body: list[ast.stmt]) -> dict[int, ast.If]:
    """For each `if` of a block that repeats an earlier one's decision, that earlier `if` (by id of the later):
    the same test, reading only names, attributes and constants (no call), and nothing from the earlier `if` to
    the later one binding what it reads (REDQ's `if (i + 1) % delay == 0:` around the policy loss, then again
    around its backward and step). Both take the same arm in every run, so on a path they are one decision."""
    tests = [(index, stmt) for index, stmt in enumerate(body) if isinstance(stmt, ast.If)]
    if len(tests) < 2:
        return {}
    found: dict[int, ast.If] = {}
    seen: dict[str, tuple[int, ast.If]] = {}  # test's shape -> (index, its latest `if`)
    for index, stmt in tests:
        reads = _decision_reads(stmt.test)
        if reads is None:
            continue
        shape = ast.dump(stmt.test)
        earlier = seen.get(shape)
        if earlier is not None and not any(_binds_any(between, reads) for between in body[earlier[0]:index]):
            found[id(stmt)] = found.get(id(earlier[1]), earlier[1])
        seen[shape] = (index, stmt)
    return found


class Interpreter:
    """Runs one file abstractly and feeds hazards to the reporter."""

    def __init__(self, tree: ast.Module, source: str, path: str) -> None:
        self.tree = tree
        self.source = source
        self.path = path
        self.report = Reporter(source, path)
        self.steps = 0
        self.inlined: set[int] = set()  # ids of FunctionDef nodes run with known arguments
        self.uninlined_grad_modes: dict[int, set] = {}  # FunctionDef id -> grad modes of calls too deep to run
        # Method name -> grad modes of the calls `x.name(...)` whose receiver the analysis could not tell (a filter
        # taken from a list of them): a method of that name that nothing runs inlined was perhaps called there.
        self.unresolved_method_modes: dict[str, set] = {}
        self.defined: list[FunctionValue] = []  # every function/method seen, in source order
        self.classes: list[ClassValue] = []
        self.call_stack: list[ast.AST] = []
        self.unknown_instances: dict[int, InstanceValue] = {}
        # class node id -> the event numbers its unknown instance's construction ran between
        self.construction_seq: dict[int, tuple[int, int]] = {}
        self.calls = calls.CallHandler(self)
        self._byte_lines = shared_byte_lines(source)
        self.statements: list[ast.stmt] = []
        self._blocks: dict | None = None  # statement id -> (its block, its index there), built on first use
        self._foreign_blocks: dict = {}  # the same for a loaded project module, by its path
        self._texts: dict[ast.AST, str] = {}  # keyed by node: synthetic nodes are freed, their ids reused
        # Project modules the file imports (by resolved path; None: could not be read), and the ones being run.
        self.modules: dict[FilePath, project.LoadedModule | None] = {}
        self.loading: list[FilePath] = []
        self.module_names: dict[int, str] = {}  # id of a project module's scope -> its `__name__`
        self._resolving: set[int] = set()  # ids of the LazyImports being resolved
        self._dependencies: set | None = None  # the project files this file's analysis may load
        self.memo = CallMemo()  # summaries of the calls run so far, per calling context
        # The dtype of new floating tensors, unless the file may change it (`torch.set_default_dtype`); asked for
        # every parameter a module builds, so decided once rather than by searching the text each time.
        self.default_float = None if "set_default_dtype" in source else dtypes.DEFAULT_FLOAT
        # `if self.training:` statements (by node id) whose training flag was unknown: the arm that runs only in
        # eval mode. A backward assumed because a forward is trained never follows that arm.
        self.eval_arms: dict[int, int] = {}
        self._decisions: dict[int, ast.If] = {}  # `if` statement id -> the `if` whose decision it repeats
        self._decided_blocks: set[int] = set()  # ids of the statement lists `same_decisions` has looked at

    # ----------------------------------------------------------------------------------------------- driver
    def run(self) -> None:
        """Analyse the module: top-level code, then every function nothing called."""
        module_env: dict = {}
        frame = Frame(env=module_env, globals=module_env)
        self.exec_block(self.tree.body, frame)
        self._run_uncalled()

    def _run_uncalled(self) -> None:
        """Run every function no analysed code called, callers first.

        Functions whose name the file never mentions outside their own definition go first: running them inlines
        the helpers they call (with the caller's grad mode and arguments), so a helper defined above its caller
        is not also run on its own as if nothing called it. What is still not run after that runs last.
        """
        mentioned = self._mentioned_names()
        seen: set[int] = set()
        index = 0
        while index < len(self.defined):
            fn = self.defined[index]
            index += 1
            key = id(fn.node)
            if key in self.inlined or key in seen or isinstance(fn.node, ast.Lambda):
                continue
            if mentioned.get(fn.node.name, 0) > 0:
                continue
            seen.add(key)
            self.run_unknown_context(fn)
        # The rest, callers before the functions they call (by name), so that a helper runs inlined, with its
        # caller's grad mode and arguments, rather than on its own.
        calls_of: dict[int, set[str]] = {}
        while True:
            pending = [fn for fn in self.defined if id(fn.node) not in self.inlined and id(fn.node) not in seen
                       and not isinstance(fn.node, ast.Lambda)]
            if not pending:
                break
            called: Counter = Counter()
            for other in pending:
                if id(other.node) not in calls_of:
                    calls_of[id(other.node)] = self._called_names(other.node)
                called.update(calls_of[id(other.node)])
            fn = next((f for f in pending if not called[f.node.name]), None) or _first_caller(pending, calls_of)
            seen.add(id(fn.node))
            self.run_unknown_context(fn)

    @staticmethod
    def _called_names(node: ast.AST) -> set[str]:
        """The names a function calls (`f(...)`, `x.f(...)`), its nested definitions included."""
        names = set()
        for child in ast.walk(node):
            if isinstance(child, ast.Call):
                func = child.func
                if isinstance(func, ast.Name):
                    names.add(func.id)
                elif isinstance(func, ast.Attribute):
                    names.add(func.attr)
        names.discard(getattr(node, "name", None))  # recursion does not make a function called
        return names

    def _mentioned_names(self) -> dict[str, int]:
        """How often each function name is read in the file (`name` or `x.name`) outside the definitions of that
        name (a recursive call does not make a function called). One pass over the tree."""
        spans: dict[str, list[tuple[int, int]]] = {}
        loads: dict[str, list[int]] = {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads.setdefault(node.id, []).append(node.lineno)
            elif isinstance(node, ast.Attribute):
                if isinstance(node.ctx, ast.Load):
                    loads.setdefault(node.attr, []).append(node.end_lineno or node.lineno)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                spans.setdefault(node.name, []).append((node.lineno, node.end_lineno or node.lineno))
        return {name: sum(1 for line in loads.get(name, ()) if not any(a <= line <= b for a, b in own))
                for name, own in spans.items()}

    def run_unknown_context(self, fn: FunctionValue, owner: ClassValue | None = None) -> None:
        """Run one function with unknown arguments; values it returns are headed for a backward."""
        node = fn.node
        env: dict = {}
        args = node.args
        params = [*args.posonlyargs, *args.args]
        owner = owner or fn.owner_class
        if owner is not None and fn.kind == "function" and node.name == "__init__" \
                and fn is self.lookup_class_attr(owner, "__init__"):
            self.unknown_instance(owner)  # its construction with unknown arguments is this run (once)
            return
        # Where this entry's own run starts (its instance's construction included): the backward assumed of what it
        # returns needs what this run saved, not what another entry point's run left on a shared instance (`fit`
        # then `transform` would be a second caller's choice, and a second assumption).
        since = next_seq()
        first = None
        if owner is not None and fn.kind in ("function", "property"):
            first = self.unknown_instance(owner)
        elif owner is not None and fn.kind == "classmethod":
            first = owner
        env.update(self.unknown_arguments(args, first))
        # Grad mode is the caller's choice: on for `forward` (training), and for a function that runs the backward
        # of a graph it builds itself (that backward only works with grad mode on); unknown for anything else
        # nobody here calls.
        default_grad: Tri = True if node.name in ("forward", "__call__") or runs_own_backward(node) else None
        framework_grad = entry_grad_mode(node.name, owner)  # Lightning's step hooks
        if framework_grad is not None:
            default_grad = framework_grad
        trained = True  # whether a backward of what it returns is a path the code can take
        if self.uninlined_grad_modes.get(id(node)) == {False}:
            default_grad = False  # every call the file makes of it runs with grad mode off (an optimizer's step)
        elif default_grad is None and owner is not None and (modes := self.self_call_modes(owner, node.name)):
            # Every call through `self` in its class hierarchy (a base class in another file, say) runs in eval
            # mode or with grad mode off: training never runs it.
            trained = False
            if modes == {CallMode.NO_GRAD}:
                default_grad = False
        elif (default_grad is None and owner is not None and id(node) not in self.uninlined_grad_modes
              and self.unresolved_method_modes.get(node.name) == {False}):
            # A method nothing here calls by a known receiver, whose name every call of the file with an unknown
            # receiver makes with grad mode off (`for f in self.logit_filters: f.apply(logits)` in a
            # `@torch.no_grad()` decode loop): it runs in that mode.
            default_grad = False
        frame = Frame(
            env=env,
            globals=fn.env,
            grad_mode=fn.grad_mode if fn.grad_mode is not None else default_grad,
            function=fn.qualname, autocast=fn.autocast,
            unknown_context=True,
            depth=1,
        )
        frame.param_values = dict(env)
        frame.mutates_on_request = self.mutates_on_request(fn)
        self.call_stack.append(node)
        try:
            self.exec_block(node.body, frame)
        finally:
            self.call_stack.pop()
        # Where grad mode was assumed (a forward), the message says when the backward fails: when trained.
        assumed = fn.grad_mode is None and bool(default_grad)
        when = " when trained (grad mode on)" if assumed else ""
        for value in frame.returns if trained else ():
            for tensor in self.tensors_in(value):
                self.calls.backward(
                    frame, tensor, node, f"the value `{fn.qualname}` returns{when}", implicit=True,
                    trained=assumed, since=since,
                    built=self.construction_seq.get(id(owner.node), (0, 0)) if owner is not None else (0, 0),
                )

    def self_call_modes(self, owner: ClassValue, name: str) -> set[CallMode]:
        """How the methods of a class and of its bases the analysis resolved (in this file or another of the
        project) call `self.name(...)`: empty when none does, else the modes of those calls when none of them may
        run in training (eval arms, no-grad blocks), and empty again when one may."""
        modes: set[CallMode] = set()
        seen: set[int] = set()
        pending = [owner]
        while pending:
            cls = pending.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            pending.extend(base for base in cls.bases if isinstance(base, ClassValue))
            for member in cls.attrs.values():
                if isinstance(member, FunctionValue) and isinstance(member.node, (ast.FunctionDef,
                                                                                  ast.AsyncFunctionDef)):
                    modes.update(self_calls(member.node).get(name, ()))
        return set() if CallMode.ANY in modes else modes

    def mutates_on_request(self, fn: FunctionValue) -> bool:
        """Whether a function writes its arguments because its caller asks it to (the hazard, if any, is at the
        call site): it takes an `inplace` flag, is a method of a class built with one (timm's
        `Sigmoid(inplace=True)`), or is named like PyTorch's in-place functions (`uniform_`, `sumexp_`)."""
        node = fn.node
        name = getattr(node, "name", "")
        if name.endswith("_") and not name.endswith("__") and name.strip("_") != "":
            return True
        if _takes_inplace(node.args):
            return True
        init = self.lookup_class_attr(fn.owner_class, "__init__") if fn.owner_class is not None else None
        return isinstance(init, FunctionValue) and _takes_inplace(init.node.args)

    def unknown_arguments(self, args: ast.arguments, first: Value | None) -> dict:
        """Every parameter bound to a value of unknown provenance (the first one to `first`, e.g. `self`)."""
        params = [*args.posonlyargs, *args.args]
        defaults = [None] * (len(params) - len(args.defaults)) + list(args.defaults)
        env: dict = {}
        for index, arg in enumerate(params):
            env[arg.arg] = first if index == 0 and first is not None else self.argument_value(arg, defaults[index])
        for arg, default in zip(args.kwonlyargs, args.kw_defaults):
            env[arg.arg] = self.argument_value(arg, default)
        if args.vararg:
            env[args.vararg.arg] = UNKNOWN
        if args.kwarg:
            env[args.kwarg.arg] = UNKNOWN
        return env

    def argument_value(self, arg: ast.arg, default: ast.expr | None = None) -> Value:
        """An argument whose provenance is unknown: its annotation says whether it is a tensor, else a literal
        default that is a number, bool or string says what kind of value callers pass (`scale=0.5`, `eps=1e-6`,
        `bias=True`: a Python number saves nothing when it multiplies a tensor), as Pyright infers an unannotated
        parameter's type from its default."""
        kind = annotation_kind(arg.annotation)
        literal = literal_default(default) if arg.annotation is None else None
        if literal is not None:
            return ScalarValue(kind=literal)
        if kind == "scalar":
            return ScalarValue(kind="str") if _is_str_annotation(arg.annotation) else SCALAR
        if kind == "scalars":  # `image_size: Tuple[int, int]`: its items are numbers, `x / image_size[1]` saves nothing
            return SeqValue([SCALAR], imprecise=True, open_ended=True)
        if kind == "container":
            return UNKNOWN
        group = Group(label=arg.arg, line=arg.lineno, origin="arg", named=True)
        return TensorValue(group=group, rg=None, leaf_rg=None, graph=frozenset(), label=arg.arg,
                           is_tensor=True if kind == "tensor" else None)

    def unknown_instance(self, cls: ClassValue) -> InstanceValue:
        """An instance of a file-defined class built by running its `__init__` with unknown arguments."""
        key = id(cls.node)
        if key in self.unknown_instances:
            return self.unknown_instances[key]
        inst = InstanceValue(cls=cls, label="self", training=None)  # train() or eval(): the caller's choice
        self.unknown_instances[key] = inst
        start = next_seq()
        init = self.lookup_class_attr(cls, "__init__")
        if isinstance(init, FunctionValue):
            env = self.unknown_arguments(init.node.args, inst)
            frame = Frame(env=env, globals=init.env, function=init.qualname, unknown_context=True, depth=1,
                          depth_limit=MAX_CONSTRUCT_DEPTH)
            frame.param_values = dict(env)
            frame.mutates_on_request = self.mutates_on_request(init)
            self.inlined.add(id(init.node))
            self.call_stack.append(init.node)
            try:
                self.exec_block(init.node.body, frame)
            finally:
                self.call_stack.pop()
        self.construction_seq[key] = (start, next_seq())
        return inst

    def lookup_class_attr(self, cls: ClassValue, name: str) -> Value | None:
        """A class attribute, searching file-defined bases too."""
        if name in cls.attrs:
            return cls.attrs[name]
        for base in cls.bases:
            if isinstance(base, ClassValue):
                found = self.lookup_class_attr(base, name)
                if found is not None:
                    return found
        return None

    # ------------------------------------------------------------------------------------------ statements
    def exec_block(self, body: list[ast.stmt], frame: Frame) -> bool:
        """Run statements in order; True when the block always leaves early (return/raise/break/continue)."""
        if id(body) not in self._decided_blocks:
            self._decided_blocks.add(id(body))
            self._decisions.update(same_decisions(body))
        for stmt in body:
            if self.exec_stmt(stmt, frame):
                return True
        return False

    def exec_stmt(self, stmt: ast.stmt, frame: Frame) -> bool:
        """Run one statement; True when control never reaches the next one."""
        self.steps += 1
        kind = type(stmt)
        method = _HANDLERS.get((type(self), kind), _MISSING)
        if method is _MISSING:
            method = _HANDLERS[type(self), kind] = getattr(type(self), "stmt_" + kind.__name__, None)
        if method is None:
            return False
        self.statements.append(stmt)
        try:
            return bool(method(self, stmt, frame))
        finally:
            self.statements.pop()

    def block_of(self, stmt: ast.stmt) -> tuple[list, int] | None:
        """The block (statement list) a statement stands in, and its index there: in the file, or in a project
        module the analysis loaded (a backward and the step before it in a trainer's method)."""
        if self._blocks is None:
            self._blocks = block_index(self.tree)
        found = self._blocks.get(id(stmt))
        if found is None:
            module = next((m for m in self.modules.values() if m is not None and id(stmt) in m.node_ids), None)
            if module is not None:
                if module.path not in self._foreign_blocks:
                    self._foreign_blocks[module.path] = block_index(module.tree)
                found = self._foreign_blocks[module.path].get(id(stmt))
        return found

    @property
    def current_statement(self) -> ast.stmt | None:
        """The innermost statement being run."""
        return self.statements[-1] if self.statements else None

    @property
    def current_scope(self) -> ast.AST:
        """The function definition being run, or the module when no function is."""
        return self.call_stack[-1] if self.call_stack else self.tree

    def stmt_Expr(self, stmt: ast.Expr, frame: Frame) -> None:
        value = self.eval(stmt.value, frame)
        if isinstance(value, GradModeCtx) and value.applies_now:
            frame.grad_mode = value.enabled  # torch.set_grad_enabled(False) as a statement

    def stmt_Assign(self, stmt: ast.Assign, frame: Frame) -> None:
        value = self.eval(stmt.value, frame)
        for target in stmt.targets:
            self.assign(target, value, frame, stmt)

    def stmt_AnnAssign(self, stmt: ast.AnnAssign, frame: Frame) -> None:
        if stmt.value is not None:
            self.assign(stmt.target, self.eval(stmt.value, frame), frame, stmt)

    def stmt_AugAssign(self, stmt: ast.AugAssign, frame: Frame) -> None:
        self.calls.augassign(stmt, frame)

    def stmt_Return(self, stmt: ast.Return, frame: Frame) -> bool:
        frame.returns.append(self.eval(stmt.value, frame) if stmt.value is not None else SCALAR)
        return True

    def stmt_Raise(self, stmt: ast.Raise, frame: Frame) -> bool:
        if stmt.exc is not None:
            self.eval(stmt.exc, frame)
        return True

    def stmt_Break(self, stmt: ast.Break, frame: Frame) -> bool:
        return True

    def stmt_Continue(self, stmt: ast.Continue, frame: Frame) -> bool:
        return True

    def stmt_Assert(self, stmt: ast.Assert, frame: Frame) -> None:
        self.eval(stmt.test, frame)

    def stmt_Delete(self, stmt: ast.Delete, frame: Frame) -> None:
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                frame.env.pop(target.id, None)

    def stmt_Import(self, stmt: ast.Import, frame: Frame) -> None:
        importer = self.current_file()
        for alias in stmt.names:
            if alias.asname:
                frame.env[alias.asname] = self.lazy_import(importer, alias.name, 0, None, QualName(alias.name))
            else:
                top = alias.name.split(".")[0]
                frame.env[top] = self.lazy_import(importer, top, 0, None, QualName(top))

    def stmt_ImportFrom(self, stmt: ast.ImportFrom, frame: Frame) -> None:
        module = ("." * stmt.level) + (stmt.module or "")
        importer = self.current_file()
        for alias in stmt.names:
            if alias.name == "*":
                source = self.project_module(importer, stmt.module or "", stmt.level)
                if source is not None:
                    frame.env.update({k: v for k, v in source.env.items() if not k.startswith("_")})
                continue
            fallback = QualName(f"{module}.{alias.name}" if module else alias.name)
            frame.env[alias.asname or alias.name] = self.lazy_import(importer, stmt.module or "", stmt.level,
                                                                     alias.name, fallback)

    def current_file(self) -> FilePath | None:
        """The file whose code runs now: the checked file, or the project module being imported."""
        if self.loading:
            return self.loading[-1]
        path = FilePath(self.path)
        return path if path.name.endswith((".py", ".pyi", ".ipynb")) else None  # a notebook imports as a script

    def lazy_import(self, importer: FilePath | None, dotted: str, level: int, name: str | None,
                    fallback: Value) -> Value:
        """What an import binds: a project name, loaded when first used; a library name as it is."""
        if importer is None:
            return fallback
        if project.resolve_cached(importer, dotted, level) is None and (name is None or project.resolve_cached(
                importer, f"{dotted}.{name}" if dotted else name, level) is None):
            return fallback  # neither a project module nor, for `from . import x`, a project submodule
        return LazyImport(importer=importer, dotted=dotted, level=level, name=name, fallback=fallback)

    def resolve_lazy(self, lazy: LazyImport) -> Value:
        """The value a project import stands for, loading its module on first use (a cycle of re-exports, which
        Python would reject, gives the library name)."""
        if lazy.resolved is not None:
            if self.memo.recording:
                self.memo.read_resolved(lazy.resolved)
            return lazy.resolved
        self.memo.impure()  # loads a module: what a later call can load depends on it
        if id(lazy) in self._resolving:
            return lazy.fallback
        self._resolving.add(id(lazy))
        try:
            lazy.resolved = self._resolve_lazy(lazy)
        finally:
            self._resolving.discard(id(lazy))
        return lazy.resolved

    def _resolve_lazy(self, lazy: LazyImport) -> Value:
        if lazy.name is None:
            return self.project_module(lazy.importer, lazy.dotted, lazy.level) or lazy.fallback
        source = self.project_module(lazy.importer, lazy.dotted, lazy.level)
        value = source.env.get(lazy.name) if source is not None else None
        if value is None:  # `from . import models`: a submodule
            sub = f"{lazy.dotted}.{lazy.name}" if lazy.dotted else lazy.name
            value = self.project_module(lazy.importer, sub, lazy.level)
        if value is None:
            value = UNKNOWN if source is not None else lazy.fallback
        if isinstance(value, LazyImport):  # re-exported by a package's `__init__`
            value = self.resolve_lazy(value)
        return value

    def project_module(self, importer: FilePath | None, dotted: str, level: int) -> ModuleNamespace | None:
        """The scope of a module of the file's own project, run once (its `if __name__ == "__main__":` block
        does not run), or None for a library or a module that cannot be read."""
        if importer is None:
            return None
        target = project.resolve_cached(importer, dotted, level)
        if target is None:
            return None
        key = project.real_path(target)
        if key == project.real_path(FilePath(self.path)) or key in self.loading:
            return None  # the file itself, or an import cycle
        if self._dependencies is None:
            self._dependencies = {project.real_path(p) for p in project.dependency_files(self.path, self.source)}
        if key not in self._dependencies:
            return None  # beyond what a cached result of this file is keyed on
        if key not in self.modules:
            if len(self.modules) >= project.MAX_MODULES:
                return None
            loaded = project.load(FilePath(self.path), target)
            self.modules[key] = loaded
            if loaded is not None:
                self.report.add_foreign(loaded.display, loaded.node_ids, loaded.lines, str(loaded.path))
                self.module_names[id(loaded.env)] = dotted.rsplit(".", 1)[-1] or target.parent.name
                module_frame = Frame(env=loaded.env, globals=loaded.env, function="<module>")
                self.loading.append(key)
                saved_stack, saved_statements = self.call_stack, self.statements
                self.call_stack, self.statements = [], []
                try:
                    self.exec_block(loaded.tree.body, module_frame)
                finally:
                    self.loading.pop()
                    self.call_stack, self.statements = saved_stack, saved_statements
        loaded = self.modules[key]
        return ModuleNamespace(name=dotted or target.parent.name, env=loaded.env) if loaded is not None else None

    def stmt_FunctionDef(self, stmt: ast.FunctionDef, frame: Frame, owner: ClassValue | None = None) -> None:
        qualname = stmt.name if frame.function == "<module>" else f"{frame.function}.{stmt.name}"
        fn = FunctionValue(node=stmt, qualname=qualname, env=self.scope_of_definition(frame, owner))
        for deco in stmt.decorator_list:
            target = deco.func if isinstance(deco, ast.Call) else deco
            named = frame.lookup(target.id) if isinstance(target, ast.Name) else None
            # A decorator imported from the project is not loaded for this: only torch's grad-mode ones matter.
            dv = named.fallback if isinstance(named, LazyImport) else self.eval(target, frame)
            if isinstance(dv, QualName):
                name = dv.name
                if name in ("torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad", "torch.autograd.grad_mode.no_grad"):
                    fn.grad_mode = False
                elif name in ("torch.library.custom_op", "torch._library.custom_ops.custom_op"):
                    fn.grad_mode = False  # a custom op's implementation runs below autograd, grad mode off
                elif name in ("torch.enable_grad", "torch.autograd.enable_grad"):
                    fn.grad_mode = True
                elif name in calls.dispatch.AUTOCASTS and isinstance(deco, ast.Call):
                    region = self.eval(deco, frame)  # `@torch.autocast("cpu", dtype=torch.bfloat16)`
                    if isinstance(region, AutocastCtx) and region.enabled is not False:
                        fn.autocast = replace(region, line=deco.lineno)
                elif name.endswith("staticmethod"):
                    fn.kind = "staticmethod"
                elif name.endswith("classmethod"):
                    fn.kind = "classmethod"
                elif name.endswith("property"):
                    fn.kind = "property"
        fn.owner_class = owner
        fn.defaults = tuple(self.eval(d, frame) for d in stmt.args.defaults)
        fn.kw_defaults = tuple(self.eval(d, frame) if d is not None else None for d in stmt.args.kw_defaults)
        if not self.loading:  # functions of other project files are run only when this file calls them
            self.defined.append(fn)
        frame.env[stmt.name] = fn

    stmt_AsyncFunctionDef = stmt_FunctionDef

    @staticmethod
    def scope_of_definition(frame: Frame, owner: ClassValue | None):
        """The names a function defined in `frame` sees: the module's (live, as Python looks globals up at call
        time, so a helper defined further down is found), under a snapshot of the enclosing function's locals.
        A class body's names are not visible to its methods."""
        if owner is not None or frame.function == "<module>" or frame.env is frame.globals:
            return frame.globals
        return ChainMap(dict(frame.env), frame.globals)

    def stmt_ClassDef(self, stmt: ast.ClassDef, frame: Frame) -> None:
        bases = [self.eval(b, frame) for b in stmt.bases]
        bases = [b.fallback if isinstance(b, LazyImport) else b for b in bases]
        is_module: Tri = False
        for base in bases:
            if isinstance(base, ClassValue) and base.is_module is not False:
                is_module = True if base.is_module else (is_module or None)
            elif isinstance(base, QualName):
                if base.name.startswith("torch.nn") and base.name.split(".")[-1] in ("Module", "Sequential", "ModuleList"):
                    is_module = True
                elif not base.name.startswith(("builtins", "typing", "enum", "abc", "dataclasses")):
                    is_module = True if is_module else None
        cls = ClassValue(node=stmt, name=stmt.name, bases=bases, attrs={}, is_module=bool(is_module) if is_module is not None else None)  # type: ignore[arg-type]
        autograd_function = any(
            (isinstance(b, QualName) and b.name.endswith(("autograd.Function", "autograd.function.Function")))
            or (isinstance(b, ClassValue) and b.autograd_function) for b in bases
        )
        cls.autograd_function = autograd_function
        class_frame = Frame(
            env={}, globals=self.scope_of_definition(frame, None), grad_mode=frame.grad_mode, function=stmt.name,
            path=frame.path,
        )
        for item in stmt.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.stmt_FunctionDef(item, class_frame, owner=cls)
                if autograd_function and item.name in ("forward", "backward", "jvp", "vjp", "setup_context"):
                    # PyTorch runs a custom Function's forward and backward with grad mode off.
                    class_frame.env[item.name].grad_mode = False
            elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                self.exec_stmt(item, class_frame)
        cls.attrs = class_frame.env
        if not self.loading:
            self.classes.append(cls)
        frame.env[stmt.name] = cls

    def stmt_If(self, stmt: ast.If, frame: Frame) -> None | bool:
        test = self.eval(stmt.test, frame)
        decision = self._decisions.get(id(stmt), stmt)
        if self.static_truth(test) is None and (arm := eval_arm(stmt.test)) is not None:
            self.eval_arms[id(decision)] = arm
        return self.branch(stmt, frame, [stmt.body, stmt.orelse], test, decision=decision)

    def eval_only(self, path: Path) -> bool:
        """Whether events on this path run only in eval mode (an arm of `if self.training:` that training never
        takes, or what follows an `if self.training: return ...`)."""
        for (node_id, _), arms in path:
            arm = self.eval_arms.get(node_id)
            if arm is not None and arms == {arm}:
                return True
        return False

    def branch(self, node: ast.AST, frame: Frame, arms: list[list[ast.stmt]], test: Value | None = None,
               decision: ast.AST | None = None) -> bool:
        """Run each arm from the same state, tagging events with the arm; merge the scopes that fall through.
        `decision`: the earlier branch whose arm this one takes (`same_decisions`), whose key the arms share."""
        static = self.static_truth(test)
        if static is not None and len(arms) == 2:
            return self.exec_block(arms[0] if static else arms[1], frame)
        decision = decision if decision is not None else node
        key = (id(decision), frame.loop_tags)
        self.report.branches[id(node)] = node
        self.report.branches[id(decision)] = decision
        start_env = frame.env
        start_path = frame.path
        outs: list[dict] = []
        survivors: list[int] = []
        for arm_index, body in enumerate(arms):
            frame.env = dict(start_env)
            frame.path = start_path + ((key, frozenset((arm_index,))),)
            left = self.exec_block(body, frame)
            if not left:
                outs.append(frame.env)
                survivors.append(arm_index)
        frame.path = start_path
        if not outs:
            frame.env = start_env
            start_env.clear()
            return True
        if len(survivors) < len(arms):
            # What follows runs only after the arms that fell through.
            frame.path = start_path + ((key, frozenset(survivors)),)
        merged = outs[0]
        for other in outs[1:]:
            merged = join_envs(merged, other)
        if len(outs) > 1:
            self._qualify_joined(merged, outs, survivors, key)
        start_env.clear()
        start_env.update(merged)
        frame.env = start_env
        return False

    @staticmethod
    def _qualify_joined(merged: dict, outs: list[dict], survivors: list[int], key: tuple) -> None:
        """Record, on each tensor value the merge made, the arms on which it is each of its groups."""
        for name, value in merged.items():
            if not isinstance(value, TensorValue) or not value.maybe_groups:
                continue
            per_arm = [(arm, out.get(name)) for arm, out in zip(survivors, outs)]
            if any(v is value for _, v in per_arm):
                continue  # a value one arm made itself, not a merge: shared with other holders
            arms_of: dict[int, list] = {}
            for arm, v in per_arm:
                if isinstance(v, TensorValue):
                    for g, _ in v.all_groups():
                        arms_of.setdefault(id(g), []).append((arm, v.arm_path(g)))
            qualified = {}
            for g, _ in value.all_groups():
                seen = arms_of.get(id(g), [])
                if seen and len(seen) < len(survivors):
                    inner = seen[0][1] if len(seen) == 1 else ()
                    qualified[id(g)] = ((key, frozenset(arm for arm, _ in seen)),) + inner
            if qualified:
                value.group_arms = qualified
            tensors = [(arm, v) for arm, v in per_arm if isinstance(v, TensorValue)]
            common = frozenset.intersection(*(v.graph for _, v in tensors)) \
                if len(tensors) == len(survivors) else frozenset()
            graph_arms = {}
            for item in value.graph - common:  # the saves some arm's value does not need (few: set difference)
                present = [(arm, v) for arm, v in tensors if item in v.graph]
                inner = (present[0][1].graph_arms or {}) if len(present) == 1 else {}
                graph_arms[id(item)] = ((key, frozenset(arm for arm, _ in present)),) + inner.get(id(item), ())
            if graph_arms:
                value.graph_arms = graph_arms

    @staticmethod
    def static_truth(test: Value | None) -> bool | None:
        """Conditions the analysis can decide: literals, defaults like `inplace=False`, `__name__ == "__main__"`,
        a list whose items are known, a dict known to hold keys, a function or class."""
        if isinstance(test, ScalarValue):
            return test.truth
        if isinstance(test, SeqValue) and not test.imprecise and not test.open_ended:
            return bool(test.items)
        if isinstance(test, DictValue) and test.items:
            return True
        if isinstance(test, (FunctionValue, ClassValue)):
            return True
        return None

    def stmt_For(self, stmt: ast.For, frame: Frame) -> None:
        iterable = self.eval(stmt.iter, frame)
        items = self.iteration_items(iterable)
        if items is not None and (len(items) <= MAX_UNROLL or (len(items) <= MAX_MODULE_UNROLL and all(
                isinstance(item, (ModuleValue, InstanceValue)) for item in items))):
            for index, item in enumerate(items):
                frame.loop_tags = frame.loop_tags + ((id(stmt), index),)
                self.assign(stmt.target, item, frame, stmt)
                self.exec_block(stmt.body, frame)
                frame.loop_tags = frame.loop_tags[:-1]
        else:
            element = self.element_value(iterable, items)
            self.loop_passes(stmt, frame, lambda: self.assign(stmt.target, element, frame, stmt))
        self.exec_block(stmt.orelse, frame)

    def loop_passes(self, stmt: ast.For | ast.While, frame: Frame, start) -> None:
        """Run a loop body whose iterations the analysis cannot count: twice (a save in one iteration, the write
        in the next), and once more when the first pass changed which local tensors require grad (`h = f(h * mask)`
        with `h` fresh: only from the second iteration on does the product save `mask`, so its write shows in the
        third)."""
        self.widen_counters(stmt, frame)
        states = [self.grad_state(frame)]  # before each pass
        for index in range(MAX_LOOP_PASSES):
            if index >= 2 and states[index - 2] == states[index - 1]:
                break  # the pass before last changed nothing: the last pass saw every save a write can break
            frame.loop_tags = frame.loop_tags + ((id(stmt), index),)
            start()
            self.exec_block(stmt.body, frame)
            frame.loop_tags = frame.loop_tags[:-1]
            states.append(self.grad_state(frame))

    @staticmethod
    def widen_counters(stmt: ast.For | ast.While, frame: Frame) -> None:
        """Forget the value of numbers and strings the loop body reassigns (`step += 1`): the passes the analysis
        runs are the first iterations, and a condition like `step % 10 == 0` must not be decided by them."""
        assigned = getattr(stmt, "_fixinplace_assigned", None)
        if assigned is None:  # the loop's body does not change between passes and calls: kept on the node
            assigned = frozenset(node.id for part in stmt.body for node in ast.walk(part)
                                 if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store))
            stmt._fixinplace_assigned = assigned  # type: ignore[union-attr]
        for name in assigned:
            value = frame.env.get(name)
            if isinstance(value, ScalarValue) and value.known and value.kind in ("number", "str"):
                frame.env[name] = ScalarValue(kind=value.kind)

    @staticmethod
    def grad_state(frame: Frame) -> dict:
        """Which local names hold tensors that require grad (True, False or unknown)."""
        return {name: value.rg for name, value in frame.env.items() if isinstance(value, TensorValue)}

    stmt_AsyncFor = stmt_For

    def stmt_While(self, stmt: ast.While, frame: Frame) -> None:
        self.loop_passes(stmt, frame, lambda: self.eval(stmt.test, frame))
        self.exec_block(stmt.orelse, frame)

    def iteration_items(self, iterable: Value) -> list | None:
        """The known elements of an iterable, when the analysis knows them."""
        if isinstance(iterable, SeqValue):
            return list(iterable.items)
        if isinstance(iterable, ParamsValue):
            return list(iterable.params)
        if isinstance(iterable, InstanceValue):  # `for layer in self:` in a subclass of nn.Sequential
            iterable = iterable.attrs.get(CONTAINER_ATTR, iterable)
        if isinstance(iterable, ModuleValue) and iterable.kind in ("Sequential", "ModuleList"):
            return list(iterable.children)
        if isinstance(iterable, ModuleValue) and iterable.kind in ("ModuleDict", "ParameterDict"):
            return [constant_value(key) for key in iterable.keys]  # `for name in heads:` gives the names
        if isinstance(iterable, ModuleValue) and iterable.kind == "ParameterList":
            return [iterable.params.get(key, UNKNOWN) for key in iterable.keys]
        return None

    def element_value(self, iterable: Value, items: list | None) -> Value:
        """One abstract element standing for every element of an iterable."""
        if items:
            value = items[0]
            for item in items[1:]:
                value = join_values(value, item)
            return value
        if isinstance(iterable, ScalarValue):
            return ScalarValue(kind="number") if iterable.is_range else SCALAR
        if isinstance(iterable, TensorValue) and iterable.is_tensor is True:
            return self.unpacked_element(iterable)  # iterating a tensor yields views of its rows
        return UNKNOWN

    def stmt_With(self, stmt: ast.With, frame: Frame) -> bool:
        saved = (frame.grad_mode, frame.allow_mutation, frame.no_grad_stmt, frame.autocast)
        for item in stmt.items:
            ctx = self.eval(item.context_expr, frame)
            if isinstance(ctx, AutocastCtx):
                # A region turned off is no region (`autocast(enabled=False)` inside another turns it off).
                frame.autocast = None if ctx.enabled is False else replace(ctx, line=stmt.lineno)
            elif isinstance(ctx, GradModeCtx):
                if ctx.enabled is False and frame.grad_mode is not False:
                    frame.no_grad_stmt = stmt  # where grad mode was turned off
                frame.grad_mode = ctx.enabled
            elif isinstance(ctx, AllowMutationCtx):
                frame.allow_mutation = True
            if item.optional_vars is not None:
                self.assign(item.optional_vars, UNKNOWN, frame, stmt)
        try:
            return self.exec_block(stmt.body, frame)
        finally:
            frame.grad_mode, frame.allow_mutation, frame.no_grad_stmt, frame.autocast = saved

    stmt_AsyncWith = stmt_With

    def stmt_Try(self, stmt: ast.Try, frame: Frame) -> bool:
        arms = [stmt.body + stmt.orelse] + [handler.body for handler in stmt.handlers]
        left = self.branch(stmt, frame, arms) if stmt.handlers else self.exec_block(stmt.body + stmt.orelse, frame)
        final = self.exec_block(stmt.finalbody, frame)
        return left or final

    stmt_TryStar = stmt_Try

    def stmt_Match(self, stmt, frame: Frame) -> bool:
        self.eval(stmt.subject, frame)
        return self.branch(stmt, frame, [case.body for case in stmt.cases] + [[]])

    # ------------------------------------------------------------------------------------------ binding
    def assign(self, target: ast.AST, value: Value, frame: Frame, stmt: ast.AST) -> None:
        """Bind a value to an assignment target (names, attributes, subscripts, tuples)."""
        if isinstance(target, ast.Name):
            self.bind_name(target.id, value, frame)
        elif isinstance(target, (ast.Tuple, ast.List)):
            elements = target.elts
            if isinstance(value, ModuleValue) and value.kind in ("Sequential", "ModuleList"):
                value = SeqValue(list(value.children))  # `attn, ff = layer` for a ModuleList of two
            if isinstance(value, SeqValue) and len(value.items) == len(elements) and not any(
                isinstance(e, ast.Starred) for e in elements
            ):
                for element, item in zip(elements, value.items):
                    self.assign(element, item, frame, stmt)
            else:
                # A layer's measured tensors, one per name: each element is one tensor (no tuple of states).
                flat = isinstance(value, TensorValue) and len(elements) > 1 and value.outputs == len(elements) \
                    and not any(isinstance(e, ast.Starred) for e in elements)
                for element in elements:
                    inner = element.value if isinstance(element, ast.Starred) else element
                    item = self.unpacked_element(value)
                    if flat and isinstance(item, TensorValue):
                        item.single = True
                    self.assign(inner, item, frame, stmt)
        elif isinstance(target, ast.Starred):
            self.assign(target.value, UNKNOWN, frame, stmt)
        elif isinstance(target, ast.Attribute):
            base = self.eval(target.value, frame)
            if isinstance(base, TensorValue) and target.attr == "data" and isinstance(value, TensorValue):
                self.calls.data_assigned(base, target, stmt, frame)
            else:
                self.set_attribute(base, target.attr, value, unparsed(target), frame)
        elif isinstance(target, ast.Subscript):
            self.calls.setitem(target, value, frame, stmt)

    def unpacked_element(self, value: Value) -> Value:
        """An element of a value unpacked into several targets (`a, b = f(x)`)."""
        if isinstance(value, TensorValue):
            # Unpacking a tensor yields views of it; unpacking what an op that returns several views returned yields
            # those views. (Unpacking any other value is not taken as an `unbind`: what the analysis holds as one
            # tensor may be a module's tuple, `out, weights = self.attn(...)`.)
            if value.multi_output_of or not (value.single and value.rg is True):
                return value.view_named(value.label + "[i]")
            # A tensor that surely is one and requires grad: iterating or unpacking it unbinds it.
            return value.view_named(value.label + "[i]", multi_output_of="unbind", multi_output_sure=True)
        return UNKNOWN

    def bind_name(self, name: str, value: Value, frame: Frame) -> None:
        """Bind a name and let tensors and modules take it as their display name."""
        frame.env[name] = value
        if isinstance(value, TensorValue):
            value.group.names.add((frame.function, name))
            if frame.names_tensors:
                value.group.rename(name)
                if not value.label.isidentifier():
                    value.label = name
        elif isinstance(value, (ModuleValue, OptimizerValue, InstanceValue)):
            self.name_module(value, name)

    def name_module(self, value: Value, name: str) -> None:
        """Name a module and its parameters after the variable it is bound to."""
        if isinstance(value, ModuleValue):
            if value.label.startswith("<"):
                value.label = name
                for pname, param in {**value.params, **value.buffers}.items():
                    param.group.rename(f"{name}.{pname}")
                    param.label = f"{name}.{pname}"
                for index, child in enumerate(value.children):
                    key = value.keys[index] if index < len(value.keys) else None
                    self.name_module(child, f"{name}.{key}" if key is not None else f"{name}[{index}]")
        elif isinstance(value, (OptimizerValue, InstanceValue)) and value.label.startswith("<"):
            value.label = name

    def set_attribute(self, base: Value, attr: str, value: Value, text: str, frame: Frame) -> None:
        """`base.attr = value`: instances of file-defined classes remember their attributes."""
        if isinstance(base, InstanceValue) and attr == "training" and base.cls.is_module \
                and isinstance(value, ScalarValue):
            base.training = value.truth  # `self.training |= self.export`: read back by `self.training`
            return
        if isinstance(base, InstanceValue):
            if isinstance(value, TensorValue):
                value.group.rename(text)
                if not value.label.isidentifier() or value.label != text:
                    value.label = text
            elif isinstance(value, (ModuleValue, InstanceValue, OptimizerValue)):
                self.name_module(value, text)
            base.attrs[attr] = value
        elif isinstance(base, TensorValue) and attr == "requires_grad":
            flag = value.truth if isinstance(value, ScalarValue) else None
            self.calls.set_requires_grad(base, flag, self.current_statement, "`.requires_grad = True`", frame)
        elif isinstance(base, ModuleValue) and attr == "inplace" and getattr(base.entry, "inplace_param", False):
            # `m.inplace = True` after construction (`for m in self.modules(): if isinstance(m, nn.Dropout): ...`):
            # the module runs in place from now on; the literal is where the flag comes from.
            truth = value.truth if isinstance(value, ScalarValue) else None
            if truth is not None:
                base.inplace = bool(truth)
                base.inplace_origin = value.origin if truth else None
        elif isinstance(base, ModuleValue) and isinstance(value, TensorValue):
            if attr in base.params:
                base.params[attr] = value
            elif attr in base.buffers:
                base.buffers[attr] = value

    # ------------------------------------------------------------------------------------------ expressions
    def eval(self, node: ast.AST | None, frame: Frame) -> Value:
        """The abstract value of an expression (running its calls)."""
        if node is None:
            return SCALAR
        kind = type(node)
        method = _HANDLERS.get((type(self), kind), _MISSING)
        if method is _MISSING:  # looked up once per class and node type, not by name on every node
            method = _HANDLERS[type(self), kind] = getattr(type(self), "expr_" + kind.__name__, None)
        if method is None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self.eval(child, frame)
            return UNKNOWN
        value = method(self, node, frame)
        if isinstance(value, LazyImport) and not self.loading:
            # (While a project module's own top level runs, its imports stay unloaded: only what the checked file
            # uses is loaded, not everything a package's modules import for themselves.)
            return self.resolve_lazy(value)
        return value

    def expr_Constant(self, node: ast.Constant, frame: Frame) -> Value:
        value = constant_value(node.value)
        value.origin = node
        return value

    def expr_JoinedStr(self, node: ast.JoinedStr, frame: Frame) -> Value:
        parts = [self.eval(piece.value, frame) for piece in node.values if isinstance(piece, ast.FormattedValue)]
        return strings.joined(node, parts) or ScalarValue(kind="str")

    def expr_Name(self, node: ast.Name, frame: Frame) -> Value:
        name = node.id
        env = frame.env
        if name in env:
            return env[name]
        value = frame.globals.get(name)
        if self.memo.recording:
            self.memo.read(frame.globals, name, value)
        if value is not None:
            return value
        if node.id == "__name__":
            name = self.module_names.get(id(frame.globals))
            if name is not None:  # an imported project module: not "__main__"
                return ScalarValue(kind="str", constant=name)
            return ScalarValue(kind="str", is_main=True)
        if hasattr(builtins, node.id):
            return QualName("builtins." + node.id)
        return UNKNOWN

    def expr_Attribute(self, node: ast.Attribute, frame: Frame) -> Value:
        base = self.eval(node.value, frame)
        return self.calls.attribute(base, node.attr, node, frame)

    def expr_Call(self, node: ast.Call, frame: Frame) -> Value:
        return self.calls.call(node, frame)

    def expr_BinOp(self, node: ast.BinOp, frame: Frame) -> Value:
        left = self.eval(node.left, frame)
        right = self.eval(node.right, frame)
        return self.calls.binop(node, left, right, frame)

    def expr_UnaryOp(self, node: ast.UnaryOp, frame: Frame) -> Value:
        operand = self.eval(node.operand, frame)
        return self.calls.unaryop(node, operand, frame)

    def expr_Compare(self, node: ast.Compare, frame: Frame) -> Value:
        left = self.eval(node.left, frame)
        rights = [self.eval(c, frame) for c in node.comparators]
        if (
            len(node.ops) == 1
            and isinstance(node.ops[0], ast.Eq)
            and isinstance(left, ScalarValue) and left.is_main
            and isinstance(node.comparators[0], ast.Constant)
            and node.comparators[0].value == "__main__"
        ):
            return ScalarValue(kind="bool", truth_known=True)
        if len(node.ops) == 1 and isinstance(node.ops[0], (ast.Is, ast.IsNot)) and \
                isinstance(node.comparators[0], ast.Constant) and node.comparators[0].value is None:
            is_none = self.known_none(left)
            if is_none is not None:
                return truth_value(is_none == isinstance(node.ops[0], ast.Is))
        values = [left, *rights]
        if any(isinstance(v, TensorValue) for v in values):
            return self.calls.fresh_tensor(node, rg=False, label=unparsed(node))
        return truth_value(compare_constants(node.ops, values))

    @staticmethod
    def known_none(value: Value) -> bool | None:
        """Whether a value is None (`x is None` for a parameter whose default None is in force), when known."""
        if isinstance(value, ScalarValue) and value.kind:
            return value.is_none
        if isinstance(value, TensorValue) and value.is_tensor is True and value.group.origin != "arg":
            return False  # (an argument annotated `Tensor | None` may still be None)
        if isinstance(value, (ModuleValue, InstanceValue, FunctionValue, ClassValue, OptimizerValue, SeqValue,
                              DictValue)):
            return False
        return None

    def expr_BoolOp(self, node: ast.BoolOp, frame: Frame) -> Value:
        values = [self.eval(v, frame) for v in node.values]
        # `a and b` is the first falsy operand (else the last); `a or b` the first truthy one: decided when the
        # truth of the operands before it is known.
        stop = isinstance(node.op, ast.Or)
        for value in values[:-1]:
            truth = self.static_truth(value)
            if truth is None:
                break
            if truth is stop:
                return value
        else:
            return values[-1]
        result = values[0]
        for v in values[1:]:
            result = join_values(result, v)
        return result

    def expr_IfExp(self, node: ast.IfExp, frame: Frame) -> Value:
        static = self.static_truth(self.eval(node.test, frame))
        if static is not None:
            return self.eval(node.body if static else node.orelse, frame)
        key = (id(node), frame.loop_tags)
        self.report.branches[id(node)] = node
        start = frame.path
        values = []
        for arm, branch in enumerate((node.body, node.orelse)):
            frame.path = start + ((key, frozenset((arm,))),)
            values.append(self.eval(branch, frame))
        frame.path = start
        return join_values(values[0], values[1])

    def expr_Tuple(self, node: ast.Tuple, frame: Frame) -> Value:
        items: list = []
        params = False
        for element in node.elts:
            if isinstance(element, ast.Starred):
                spread = self.eval(element.value, frame)
                known = self.iteration_items(spread)
                if known is None:
                    return UNKNOWN
                params = params or isinstance(spread, ParamsValue)
                items.extend(known)
            else:
                items.append(self.eval(element, frame))
        if params:  # [*a.parameters(), *b.parameters()]
            return ParamsValue([t for t in items if isinstance(t, TensorValue)], self.text(node))
        return SeqValue(items)

    expr_List = expr_Tuple

    def expr_Dict(self, node: ast.Dict, frame: Frame) -> Value:
        items: dict = {}
        known = True
        for key, value_node in zip(node.keys, node.values):
            value = self.eval(value_node, frame)
            if key is None:  # {**other}
                if isinstance(value, DictValue):
                    items.update(value.items)
                else:
                    known = False
            elif isinstance(key, ast.Constant) and isinstance(key.value, (str, int)):
                items[key.value] = value
            else:
                self.eval(key, frame)
                known = False
        return DictValue(items) if known else UNKNOWN

    def expr_Subscript(self, node: ast.Subscript, frame: Frame) -> Value:
        return self.calls.getitem(node, frame)

    def expr_NamedExpr(self, node: ast.NamedExpr, frame: Frame) -> Value:
        value = self.eval(node.value, frame)
        self.assign(node.target, value, frame, node)
        return value

    def expr_Lambda(self, node: ast.Lambda, frame: Frame) -> Value:
        return FunctionValue(node=node, qualname="<lambda>", env=self.scope_of_definition(frame, None))

    def expr_Await(self, node: ast.Await, frame: Frame) -> Value:
        return self.eval(node.value, frame)

    def expr_Starred(self, node: ast.Starred, frame: Frame) -> Value:
        self.eval(node.value, frame)
        return UNKNOWN

    def _comprehension(self, node, frame: Frame) -> Value:
        # Comprehensions run in their own scope: evaluate generators and elements once for their calls.
        inner = Frame(env=dict(frame.env), globals=frame.globals, grad_mode=frame.grad_mode,
                      allow_mutation=frame.allow_mutation, path=frame.path, function=frame.function,
                      unknown_context=frame.unknown_context, depth=frame.depth, loop_tags=frame.loop_tags,
                      depth_limit=frame.depth_limit, names_tensors=False, autocast=frame.autocast)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and len(node.generators) == 1 \
                and not node.generators[0].ifs and not node.generators[0].is_async:
            # `[options for _ in range(3)]` over known items: the list of each item's element (a generator's
            # items likewise: `nn.ModuleList(nn.Conv2d(c, n, 1) for c in ch)`).
            gen = node.generators[0]
            iterable = self.eval(gen.iter, inner)
            items = self.iteration_items(iterable)
            if items is not None and len(items) <= MAX_UNROLL and not (
                    isinstance(iterable, SeqValue) and (iterable.imprecise or iterable.open_ended)):
                elements = []
                for item in items:
                    self.assign(gen.target, item, inner, node)
                    elements.append(self.eval(node.elt, inner))
                return SeqValue(elements)
            self.assign(gen.target, self.element_value(iterable, items), inner, node)
            element = self.eval(node.elt, inner)
            return SeqValue([element]) if isinstance(element, TensorValue) and isinstance(node, ast.ListComp) \
                else UNKNOWN
        for gen in node.generators:
            iterable = self.eval(gen.iter, inner)
            self.assign(gen.target, self.element_value(iterable, self.iteration_items(iterable)), inner, node)
            for cond in gen.ifs:
                self.eval(cond, inner)
        if isinstance(node, ast.DictComp):
            self.eval(node.key, inner)
            self.eval(node.value, inner)
            return UNKNOWN
        element = self.eval(node.elt, inner)
        if isinstance(node, (ast.ListComp,)) and isinstance(element, TensorValue):
            return SeqValue([element])
        return UNKNOWN

    expr_ListComp = expr_SetComp = expr_DictComp = expr_GeneratorExp = _comprehension

    # ------------------------------------------------------------------------------------------ helpers
    def tensors_in(self, value: Value) -> list[TensorValue]:
        """The tensors held by a value (a tensor, or the items of a tuple/list)."""
        if isinstance(value, TensorValue):
            return [value]
        if isinstance(value, (SeqValue, DictValue)):
            out: list[TensorValue] = []
            for item in value.items.values() if isinstance(value, DictValue) else value.items:
                out.extend(self.tensors_in(item))
            return out
        return []

    def text(self, node: ast.AST) -> str:
        """The source text of a node, on one line and shortened (cached per node)."""
        key = node
        cached = self._texts.get(key)
        if cached is not None:
            return cached
        segment = self._segment(node)
        if segment is None:
            segment = ast.unparse(node)
        segment = " ".join(segment.split())
        segment = shorten(segment)
        self._texts[key] = segment
        return segment

    def _segment(self, node: ast.AST) -> str | None:
        """The exact source of a node from pre-split UTF-8 lines (ast columns are byte offsets)."""
        try:
            first, last = node.lineno - 1, node.end_lineno - 1  # type: ignore[attr-defined]
            start, end = node.col_offset, node.end_col_offset  # type: ignore[attr-defined]
        except AttributeError:
            return None
        lines = self.report.byte_lines_of(node) or self._byte_lines
        if first < 0 or last >= len(lines) or end is None:
            return None
        if first == last:
            return lines[first][start:end].decode("utf-8", "replace")
        parts = [lines[first][start:], *lines[first + 1:last], lines[last][:end]]
        return b"\n".join(parts).decode("utf-8", "replace")


def _first_caller(pending: list[FunctionValue], calls_of: dict[int, set[str]]) -> FunctionValue:
    """The function to run next when every pending one is called by name by another (a cycle of names, or a name
    shared with another object's method: `decode` and `tokenizer.decode`): one that nothing outside its cycle calls,
    an entry point that sets grad mode (a decorator, a `with torch.no_grad()` block) first, so that the functions
    it calls run inlined in the mode they run in when it calls them."""
    by_name: dict[str, list[int]] = {}
    for index, fn in enumerate(pending):
        by_name.setdefault(fn.node.name, []).append(index)
    calls = [sorted({j for name in calls_of[id(fn.node)] for j in by_name.get(name, ()) if j != i})
             for i, fn in enumerate(pending)]
    component = _cycles(calls)
    called_from_outside = {component[j] for i, targets in enumerate(calls) for j in targets
                           if component[j] != component[i]}
    sources = [i for i in range(len(pending)) if component[i] not in called_from_outside]
    if not sources:
        return pending[0]
    first = min(sources)  # the cycle whose first function comes first in the file
    members = [i for i in sources if component[i] == component[first]]
    return pending[next((i for i in members if _sets_grad_mode(pending[i])), first)]


def _cycles(calls: list[list[int]]) -> list[int]:
    """The strongly connected component of each node of a graph (Tarjan's algorithm, without recursion)."""
    count = len(calls)
    index_of, low, component = [-1] * count, [0] * count, [-1] * count
    stack: list[int] = []
    on_stack = [False] * count
    counter = found = 0
    for root in range(count):
        if index_of[root] != -1:
            continue
        work = [(root, 0)]
        while work:
            node, edge = work.pop()
            if edge == 0:
                index_of[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack[node] = True
            if edge < len(calls[node]):
                work.append((node, edge + 1))
                target = calls[node][edge]
                if index_of[target] == -1:
                    work.append((target, 0))
                elif on_stack[target]:
                    low[node] = min(low[node], index_of[target])
                continue
            if low[node] == index_of[node]:
                while True:
                    member = stack.pop()
                    on_stack[member] = False
                    component[member] = found
                    if member == node:
                        break
                found += 1
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return component


_GRAD_MODE_CONTEXTS = {"no_grad", "enable_grad", "inference_mode", "set_grad_enabled"}


def _sets_grad_mode(fn: FunctionValue) -> bool:
    """Whether a function decides the grad mode of what it calls: a decorator does, or a `with torch.no_grad()`
    (`enable_grad`, `inference_mode`, `set_grad_enabled`) block in its body."""
    if fn.grad_mode is not None:
        return True
    for node in ast.walk(fn.node):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            if any(context_name(item.context_expr) in _GRAD_MODE_CONTEXTS for item in node.items):
                return True
    return False
