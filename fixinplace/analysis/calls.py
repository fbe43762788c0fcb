"""What calls, operators, indexing and in-place writes do to abstract tensors (the op semantics)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    AllowMutationCtx,
    BoundMethod,
    ClassValue,
    DictValue,
    FunctionValue,
    GradModeCtx,
    Group,
    InstanceValue,
    LazyImport,
    LeafUse,
    MethodRef,
    ModuleNamespace,
    ModuleValue,
    OptimizerValue,
    ParamsValue,
    QualName,
    Save,
    ScalarValue,
    SeqValue,
    Site,
    TensorValue,
    Tri,
    UnknownValue,
    Value,
    Write,
    compatible,
    constant_value,
    fold_binop,
    known_int,
    next_seq,
    tri_or,
    truth_value,
)

from fixinplace.analysis import dtypes
from fixinplace.analysis.callers import argument_is_private, returns_other_than
from fixinplace.analysis.frame import MAX_CONSTRUCT_DEPTH, MAX_UNROLL, STEP_BUDGET, Evaluator, Frame, join_values
from fixinplace.analysis.liveness import read_after
from fixinplace.analysis.moves import move_facts
from fixinplace.facts import Operand, Span, Statement

try:  # the table is shipped data; the analysis degrades to "unknown op" without it
    from fixinplace.optable import NONE as NONE_LITERAL
    from fixinplace.optable import NOT_NONE
    from fixinplace.optable import ArgFact, OpTable
except ImportError:  # pragma: no cover - only while the table module is absent
    ArgFact = None  # type: ignore[assignment]
    OpTable = None  # type: ignore[assignment]
    NONE_LITERAL = None
    NOT_NONE = None

BINOP_NAMES = {
    ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "truediv", ast.FloorDiv: "floordiv",
    ast.Mod: "mod", ast.Pow: "pow", ast.MatMult: "matmul", ast.BitAnd: "and", ast.BitOr: "or",
    ast.BitXor: "xor", ast.LShift: "lshift", ast.RShift: "rshift",
}
# The in-place Tensor method each augmented assignment amounts to (what torch dispatches `x op= y` to).
AUGASSIGN_INPLACE = {
    "add": "add_", "sub": "sub_", "mul": "mul_", "truediv": "div_", "floordiv": "floor_divide_",
    "mod": "remainder_", "pow": "pow_", "and": "bitwise_and_", "or": "bitwise_or_", "xor": "bitwise_xor_",
    "lshift": "bitwise_left_shift_", "rshift": "bitwise_right_shift_", "matmul": "matmul_",
}
UNARY_NAMES = {ast.USub: "__neg__", ast.Invert: "__invert__", ast.UAdd: "__pos__"}
SCALAR_METHODS = {
    "item", "tolist", "size", "dim", "numel", "nelement", "element_size", "stride", "data_ptr",
    "is_contiguous", "storage_offset", "equal", "is_floating_point", "is_complex", "get_device", "__len__",
    "ndimension", "untyped_storage", "storage", "_typed_storage", "_storage", "register_hook", "retain_grad", "allclose", "any_", "all_",
}
# Methods of a NumPy array (here: one that shares a tensor's memory) that copy it, and that write it in place.
NDARRAY_COPIES = {"copy", "astype", "tolist", "tobytes", "item"}
NDARRAY_WRITES = {"fill", "sort", "partition", "put", "itemset", "resize", "setfield"}
MAYBE_ALIAS_METHODS = {
    "to", "float", "double", "half", "bfloat16", "cuda", "cpu", "type", "contiguous", "type_as", "long", "int",
    "bool", "as_subclass", "pin_memory", "reshape", "reshape_as", "flatten",
}
SCALAR_ATTRS = {"shape", "dtype", "device", "ndim", "requires_grad", "is_leaf", "names", "layout", "is_cuda",
                "grad_fn", "output_nr", "_version", "nbytes", "itemsize"}
VIEW_ATTRS = {"T", "mT", "H", "mH", "real", "imag"}
GRAD_CONTEXTS = {
    "torch.no_grad": False, "torch.autograd.no_grad": False, "torch.inference_mode": False,
    "torch.autograd.grad_mode.no_grad": False, "torch.autograd.grad_mode.inference_mode": False,
    "torch.enable_grad": True, "torch.autograd.enable_grad": True,
}
SET_GRAD_ENABLED = {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
ALLOW_MUTATION = {"torch.autograd.graph.allow_mutation_on_saved_tensors"}
PASSTHROUGH = {"torch.compile", "torch.jit.script", "torch.jit.trace", "torch.nn.utils.spectral_norm",
               "torch.nn.utils.weight_norm", "torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel"}
MODULE_CONTAINERS = {"Sequential", "ModuleList"}
# Ops returning (values, indices, ...): from this output on, integer tensors that never require grad (measured).
INDEX_OUTPUTS = {name: 1 for name in ("topk", "sort", "kthvalue", "mode", "median", "nanmedian", "cummax", "cummin",
                                      "max", "min", "unique", "unique_consecutive", "frexp")}


def const_bool(node: ast.AST | None) -> Tri:
    """The value of a literal True/False, None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


class CallHandler:
    """The op semantics; shares the interpreter's state."""

    def __init__(self, interp: Evaluator) -> None:
        self.interp = interp
        self.table = OpTable.load() if OpTable is not None else None
        self.consumed: set[Save] = set()  # the saves themselves: an id can be reused once one is freed
        self.write_sites: dict[int, Site] = {}
        self._sites: dict[tuple, Site] = {}
        self._known_spreads: set[int] = set()  # ids of the calls being run whose `*`/`**` arguments are known
        self._intermediates: set[int] = set()  # ids of the values passed between the modules of a Sequential

    # =========================================================================================== basics
    @property
    def report(self):
        return self.interp.report

    def text(self, node: ast.AST) -> str:
        return self.interp.text(node)

    def site(self, node: ast.AST, form: str, op: str, *, written: ast.AST | None = None,
             frame: "Frame | None" = None, operands: list | None = None, **info) -> Site:
        """The write site for a node (one per node and form, shared across abstract executions).

        `written` is the expression of the written tensor and `operands` the other operands of the op, as
        (value, expression node or None) pairs: with them the site records the facts the fix stage plans from
        (`fixinplace.facts.WriteFacts`); `info` adds further fields of that record (index_kind, module_ctor, ...).
        """
        key = (id(node), form, info.get("module_ctor"))  # each module of a Sequential writes at its own site
        site = self._sites.get(key)
        if site is None:
            facts = self.write_facts(node, written, frame, operands) if frame is not None else {}
            site = Site(node=node, form=form, op=op, text=self.text(node), info={**facts, **info})
            self._sites[key] = site
        return site

    def write_facts(self, node: ast.AST, written: ast.AST | None, frame: Frame, operands: list | None) -> dict:
        """Where the write sits and what it writes: root name and its kind, operands, enclosing statement,
        grad mode, and whether the root name is read afterwards."""
        facts: dict = {}
        stmt = self.interp.current_statement
        if written is not None:
            root, kind = self.root_of(written, frame)
            facts.update(target=self.text(written), root=root, root_kind=kind)
            if kind in ("local", "argument") and root.isidentifier() and stmt is not None:
                scope = self.interp.call_stack[-1] if self.interp.call_stack else self.interp.tree
                facts["read_after"] = read_after(scope, stmt, root)
                if kind == "argument":
                    facts["argument_private"] = argument_is_private(self.interp.tree, scope, root)
                    facts["returns_other"] = returns_other_than(scope, root)
                facts["chain"], facts["chain_exact"], facts["chain_promotes"] = self._chain(stmt, root, frame)
        if operands is not None:
            root = facts.get("root", "")
            facts["operands"] = tuple(self.operand_facts(value, operand, root, frame) for value, operand in operands)
        if stmt is not None:
            assigned = ""
            if isinstance(stmt, ast.Expr) and stmt.value is node:
                shape = "expr"
            elif isinstance(stmt, ast.Assign) and stmt.value is node and len(stmt.targets) == 1 \
                    and isinstance(stmt.targets[0], ast.Name):
                shape, assigned = "assign", stmt.targets[0].id
            elif stmt is node:
                shape = "statement"
            else:
                shape = "nested"
            facts["statement"] = Statement(shape, stmt.lineno, getattr(stmt, "end_lineno", None) or stmt.lineno,
                                           assigned)
        facts["grad_mode"] = {True: "on", False: "off", None: "unknown"}[frame.grad_mode]
        if frame.grad_mode is False:
            no_grad = frame.no_grad_stmt
            if no_grad is not None:
                facts["grad_on_line"] = no_grad.lineno  # the last statement run with grad on
        return facts

    def _chain(self, stmt: ast.stmt, root: str, frame: Frame) -> tuple[tuple[str, ...], bool, bool]:
        """The in-place methods of a statement that is a chain of them on `root` (`img.sub_(m).div_(s)`: div_,
        sub_), when there are two or more; whether every operand of every link keeps root's dtype (a number, a
        function of root, a tensor known to have root's dtype); and whether one is known to have another dtype."""
        node = stmt.value if isinstance(stmt, (ast.Expr, ast.Assign)) else None
        ops, operands = [], []
        while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr.endswith("_") and not node.func.attr.endswith("__"):
            ops.append(node.func.attr)
            operands += [*node.args, *[kw.value for kw in node.keywords]]
            node = node.func.value
        if len(ops) < 2 or not (isinstance(node, ast.Name) and node.id == root):
            return (), False, False
        target = frame.lookup(root)
        dtype = target.dtype if isinstance(target, TensorValue) else None
        promotes = dtype is not None and any(self._static_dtype(o, frame) not in (None, dtype) for o in operands)
        return tuple(ops), all(self._keeps_dtype(o, root, dtype, frame) for o in operands), promotes

    def _static_dtype(self, node: ast.AST, frame: Frame) -> str | None:
        """The dtype of a tensor operand written as names and arithmetic (`self.alpha * self.prior`), when known;
        None for numbers and unknowns."""
        if isinstance(node, ast.BinOp):
            sides = [self._static_dtype(node.left, frame), self._static_dtype(node.right, frame)]
            known = {d for d in sides if d is not None}
            return known.pop() if len(known) == 1 else None
        value = self._lookup(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return value.dtype if isinstance(value, TensorValue) else None

    def _keeps_dtype(self, node: ast.AST, root: str, dtype: str | None, frame: Frame) -> bool:
        """An operand that keeps `root`'s dtype: a number, a function of root, a tensor of its (known) dtype, or
        an arithmetic combination of those."""
        if self._follows(node, root, frame):
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div)):
            return self._keeps_dtype(node.left, root, dtype, frame) and self._keeps_dtype(node.right, root, dtype, frame)
        value = self._lookup(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return isinstance(value, TensorValue) and dtype is not None and value.dtype == dtype

    @staticmethod
    def arg_nodes(node: ast.AST, args: list, receiver: bool = False) -> list | None:
        """The expressions of a call's positional arguments as `apply_op` receives them (the receiver of a method
        call first), or None when a `*spread` makes positions uncertain."""
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args):
            return None
        nodes = ([node.func.value] if receiver and isinstance(node.func, ast.Attribute) else []) + list(node.args)
        return nodes if len(nodes) == len(args) else None

    @staticmethod
    def operand_pairs(node: ast.Call, values: list, skip: int = 0) -> list:
        """(value, expression) pairs for a call's arguments (after the first `skip` positional ones); the
        expressions are left out when a `*spread` makes the positions uncertain."""
        if any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords):
            return [(v, None) for v in values]
        nodes = list(node.args[skip:]) + [kw.value for kw in node.keywords]
        if len(nodes) != len(values):
            return [(v, None) for v in values]
        return list(zip(values, nodes))

    def operand_facts(self, value: Value, node: ast.AST | None, root: str, frame: Frame) -> Operand:
        """What the fix stage needs to know about one operand of a write."""
        text = self.text(node) if node is not None else ""
        if isinstance(value, ScalarValue) and not value.is_str and not value.is_none:
            return Operand("number", text, follows_target=True)
        if isinstance(value, TensorValue):
            follows = node is not None and bool(root) and self._follows(node, root, frame)
            return Operand("tensor", text, value.dtype or "", follows_target=follows)
        return Operand("other", text)

    # Ops whose result has the dtype of their tensor input and no dimension larger than it (reductions and
    # elementwise functions): `x op= f(x)` rewritten `x = x op f(x)` keeps the in-place result's dtype and shape.
    KEEPS_DTYPE_AND_SHAPE = {
        "amax", "amin", "max", "min", "sum", "mean", "std", "var", "norm", "logsumexp", "prod", "median", "nanmean",
        "nansum", "cumsum", "softmax", "log_softmax", "exp", "log", "sqrt", "rsqrt", "abs", "neg", "clamp", "clip",
        "clamp_min", "clamp_max", "pow", "square", "detach", "clone", "sigmoid", "tanh", "relu", "square", "sign",
        "reciprocal", "expand_as", "vector_norm", "frobenius_norm", "logcumsumexp", "cummax", "cummin",
    }

    def _follows(self, node: ast.AST, root: str, frame: Frame) -> bool:
        """Whether an operand expression is computed only from `root` (and Python numbers) by ops that keep its
        dtype and do not make it larger (`x.amax(1, keepdim=True)`, `x.norm(dim=-1, keepdim=True) + eps`)."""
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        if isinstance(node, (ast.Name, ast.Attribute)) and self.text(node) == root:
            return True
        if isinstance(node, (ast.Name, ast.Attribute)):
            value = self._lookup(node, frame)
            return isinstance(value, ScalarValue) and not value.is_str and not value.is_none
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            return self._follows(node.operand, root, frame)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)):
            return self._follows(node.left, root, frame) and self._follows(node.right, root, frame)
        if isinstance(node, ast.Attribute) and node.attr == "values":
            return self._follows(node.value, root, frame)
        if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0 \
                and isinstance(node.value, ast.Call):
            return self._follows(node.value, root, frame)  # `x.max(1)[0]`: the values
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in self.KEEPS_DTYPE_AND_SHAPE \
                and not any(kw.arg in ("dtype", "out") or kw.arg is None for kw in node.keywords):
            constants = [*node.args, *[kw.value for kw in node.keywords]]
            receiver = node.func.value
            if self.text(receiver) in ("torch", "torch.linalg", "F", "torch.nn.functional", "torch.special"):
                if not constants:
                    return False
                receiver, constants = constants[0], constants[1:]
            return self._follows(receiver, root, frame) and all(self._is_constant(c, frame) for c in constants)
        return False

    def _is_constant(self, node: ast.AST, frame: Frame) -> bool:
        """A literal or a name of a Python number/bool/None (a `dim`, `keepdim`, `p` argument)."""
        if isinstance(node, ast.Constant):
            return True
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self._is_constant(e, frame) for e in node.elts)
        if isinstance(node, ast.UnaryOp):
            return self._is_constant(node.operand, frame)
        if isinstance(node, (ast.Name, ast.Attribute)):
            return isinstance(self._lookup(node, frame), ScalarValue)
        return False

    @staticmethod
    def _lookup(node: ast.AST, frame: Frame) -> Value | None:
        """The value of a name or attribute chain (`eps`, `self.eps`) without running anything."""
        if isinstance(node, ast.Name):
            return frame.lookup(node.id)
        if isinstance(node, ast.Attribute):
            base = CallHandler._lookup(node.value, frame)
            if isinstance(base, InstanceValue):
                return base.attrs.get(node.attr)
        return None

    def _aliases(self, method: str) -> bool:
        """Whether a Tensor method may return a view or alias of its receiver (from the table)."""
        if method in ("detach", "detach_") or method in MAYBE_ALIAS_METHODS or method.endswith("_"):
            return True
        entry = self.table.method(method) if self.table else None
        return entry is not None and entry.view != "never"

    def root_of(self, written: ast.AST, frame: Frame) -> tuple[str, str]:
        """The variable a written expression goes back to (`x` for `x.t()[0]`) and its kind:
        local, argument, global, attribute, element or other.

        An index into a value known not to be a tensor (a dict, list or tuple, a parameter list, anything but a
        tensor) selects an element, not a view: the root is then that element (`d["a"]` for `d["a"].add_(1)`,
        `ys[-1]` for `ys[-1][0] = 0`), of kind `element`, never the container, which no tensor rewrite (a clone, a
        rebinding) may touch."""
        node = written
        while True:
            if isinstance(node, ast.Subscript):
                if self._not_a_tensor(node.value, frame):
                    return self.text(node), "element"
                node = node.value
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and self._aliases(node.func.attr):
                node = node.func.value
            elif isinstance(node, ast.Attribute) and (node.attr in VIEW_ATTRS or node.attr == "data"):
                node = node.value
            else:
                break
        if isinstance(node, ast.Name):
            name = node.id
            passed = frame.param_values
            if name in passed and frame.env.get(name) is passed[name]:
                return name, "argument"  # still the caller's object (not rebound in the function)
            if frame.function == "<module>" or name in frame.env:
                return name, "local"
            return name, "global"
        if isinstance(node, ast.Attribute):
            return self.text(node), "attribute"
        return self.text(node), "other"

    @classmethod
    def _not_a_tensor(cls, node: ast.AST, frame: Frame) -> bool:
        """Whether a name or attribute chain holds a value the analysis knows is not a tensor (a container)."""
        value = cls._lookup(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return value is not None and not isinstance(value, TensorValue)

    def fresh_tensor(self, node: ast.AST, rg: Tri, label: str, leaf: bool = False, origin: str = "fresh",
                     detail: str = "", graph: frozenset = frozenset(), is_tensor: Tri = True) -> TensorValue:
        """A tensor with a version counter of its own."""
        group = Group(label=label, line=getattr(node, "lineno", 0), origin=origin, origin_detail=detail,
                      has_grad=False, created=self._created_at(node) if leaf and rg and detail else None)
        return TensorValue(group=group, rg=rg, leaf_rg=(rg if leaf else False), graph=graph, label=label,
                           is_tensor=is_tensor)

    def _created_at(self, node: ast.AST) -> "tuple[int, int] | None":
        """Where a leaf is made, for the leaf rule's related location (None in another project file)."""
        if self.report.file_of(node):
            return None
        return self.report.span(node)[:2]

    def fact(self, value: Value):
        """What the table needs to know about one argument."""
        if isinstance(value, TensorValue):
            return ArgFact(value.is_tensor, value.rg)
        if isinstance(value, ScalarValue):
            truth = value.truth if value.kind in ("bool", "none") else None  # True/False/None (not `0`)
            if truth is not None and "value" in getattr(ArgFact, "_fields", ()):
                return ArgFact(False, False, NONE_LITERAL if value.is_none else truth)
            if value.is_number and "value" in getattr(ArgFact, "_fields", ()):
                return ArgFact(False, False, NOT_NONE)
            return ArgFact(False, False)
        if isinstance(value, SeqValue):
            tensors = self.interp.tensors_in(value)
            if tensors:
                count = None if value.imprecise or value.open_ended or len(tensors) != len(value.items) \
                    else len(tensors)
                return ArgFact(True, tri_or(*[t.rg for t in tensors]), count=count)
            return ArgFact(False, False)
        if isinstance(value, ParamsValue):
            return ArgFact(True, True)
        return ArgFact(None, None)

    def tensors(self, values) -> list[TensorValue]:
        out: list[TensorValue] = []
        for v in values:
            out.extend(self.interp.tensors_in(v))
            if isinstance(v, ParamsValue):
                out.extend(v.params)
        return out

    @staticmethod
    def leaf_uses(tensors: list[TensorValue]) -> frozenset:
        """Graph markers for the inputs that are leaves requiring grad (their `.grad` gets written)."""
        return frozenset(t.group.use for t in tensors if t.leaf_rg is True or (t.leaf_rg is None and t.rg is not False))

    @staticmethod
    def output_rg(frame: Frame, tensors: list[TensorValue], differentiable: bool = True) -> Tri:
        """Whether an op's output requires grad: some input does, the op is differentiable, grad mode is on."""
        if not tensors or frame.grad_mode is False or not differentiable:
            return False
        rg = tri_or(*[t.rg for t in tensors])
        return None if rg is True and frame.grad_mode is None else rg

    def graph_of(self, tensors: list[TensorValue], rg_out: Tri) -> frozenset:
        """What the backward of an op's output needs: its inputs' saves and the leaves they reach."""
        if rg_out is False or not tensors:
            return frozenset()
        return frozenset().union(*[t.graph for t in tensors]) | self.leaf_uses(tensors)

    # =========================================================================================== events
    def record_save(self, frame: Frame, value: Value, op: str, role: str, node: ast.AST, certain: bool, *,
                    operand: ast.AST | None = None, clonable: bool = False) -> list[Save]:
        """Autograd saves `value` (every group it may be) at the groups' current versions.

        `operand` is the saved input's expression inside the op; `clonable` says that `.clone()` there (on the
        op's output for an output save) would be exact."""
        saves = []
        operand_span = self.report.span(operand) if operand is not None else None
        elements: dict[int, tuple] = {}  # a list or tuple argument written out: each tensor's own element
        if isinstance(value, SeqValue) and isinstance(operand, (ast.List, ast.Tuple)) \
                and len(operand.elts) == len(value.items) and not any(isinstance(e, ast.Starred) for e in operand.elts):
            elements = {id(item): self.report.span(e) for item, e in zip(value.items, operand.elts)
                        if isinstance(item, TensorValue)}
        for tensor in self.interp.tensors_in(value):
            span = elements.get(id(tensor), operand_span if isinstance(value, TensorValue) else None)
            for group, group_certain in tensor.all_groups():
                line, col, end_line, end_col = self.report.span(node)
                saves.append(Save(
                    group=group, version=len(group.writes), seq=next_seq(), path=frame.path, op=op, role=role,
                    label=tensor.label, line=line, column=col, file=self.report.file_of(node),
                    certain=certain and group_certain and tensor.is_tensor is True,
                    end_line=end_line, end_column=end_col, operand=span,
                    clonable=clonable and tensor.is_tensor is True and (
                        span is not None if operand is not None else isinstance(value, TensorValue)),
                ))
        return saves

    def record_write(self, frame: Frame, value: Value, site: Site, label: str, *, silent: bool = False,
                     leaf_check: bool = True, certain: bool = True) -> None:
        """An in-place write to `value`: the leaf check, then a version bump on every group it may be."""
        if not isinstance(value, TensorValue) or value.is_tensor is False:
            return
        self.write_sites[id(site)] = site
        certain = certain and value.is_tensor is True
        names = {name for _, name in value.group.names}
        root = site.info.get("root")
        # A view whose base someone else holds (another name, an attribute, a parameter, buffer or argument) shares
        # the write with it; a view of a temporary does not.
        based_elsewhere = value.view and root and (value.group.origin in ("param", "buffer", "arg") or (
            value.group.named and value.group.label != root))
        if len(names) > 1 or value.maybe_groups or based_elsewhere:
            site.facts["aliased"] = True
        # A NumPy array sharing a tensor's memory is written through, but is no tensor: no tensor rewrite applies.
        site.facts["target_is_tensor"] = site.facts.get("target_is_tensor", True) and value.is_tensor is True \
            and value.group.origin != "numpy"
        # Unknown only when no execution shows where the tensor comes from (a forward also run from `main` does).
        if any(g.origin in ("arg", "unknown") for g, _ in value.all_groups()):
            site.facts["target_unknown"] = not site.known_target_run
        else:
            site.known_target_run = True
            site.facts["target_unknown"] = False
        if value.view:
            site.facts["through_view"] = True
        if value.detached:
            site.facts["through_detach"] = True
        seen = site.facts.get("target_dtype")
        site.facts["target_dtype"] = (value.dtype or "") if seen is None or seen == (value.dtype or "") else ""
        if value.leaf_rg:
            site.facts["leaf_kind"] = value.group.origin
            if value.group.has_grad:
                site.facts["after_backward"] = True
        if leaf_check and not silent and frame.grad_mode is not False:
            if value.leaf_rg is True:
                why = value.group.origin_detail or "a leaf that requires grad"
                self.report.leaf(site, label, why, certain and frame.grad_mode is True,
                                 stmts=tuple(self.interp.statements), view=value.view, created=value.group.created,
                                 path=frame.path)
            # An argument whose callers are not seen is not reported as a possible leaf: a function that writes its
            # argument does what its callers ask (logits filters, in-place helpers, `out=` buffers), and a leaf
            # that requires grad passed to it is a hazard of the call, reported where the call is seen.
        stmts = tuple(self.interp.statements)
        for group, group_certain in value.all_groups():
            write = Write(group=group, seq=next_seq(), path=frame.path, site=site, certain=certain and group_certain,
                          silent=silent, label=label, allowed=frame.allow_mutation, stmts=stmts,
                          maybe_not_tensor=value.is_tensor is None)
            group.writes.append(write)
            if group.silent_of is not None:
                base = group.silent_of
                base.writes.append(Write(group=base, seq=write.seq, path=frame.path, site=site,
                                         certain=write.certain, silent=True, label=label, allowed=frame.allow_mutation,
                                         stmts=stmts, via=group.origin))
            # The other way: `.data` and `.numpy()` aliases of the written tensor see the new values, but their own
            # version counters do not move, so a save of an alias is changed silently.
            for alias in (group.data_group, group.numpy_group):
                if alias is not None:
                    alias.writes.append(Write(group=alias, seq=write.seq, path=frame.path, site=site,
                                              certain=write.certain, silent=True, label=label,
                                              allowed=frame.allow_mutation, stmts=stmts, via="base"))

    def backward(self, frame: Frame, value: Value, node: ast.AST, label: str, *, implicit: bool = False,
                 retain: bool = False) -> None:
        """A backward through `value`: every save it needs must still be at its saved version."""
        where = self.report.file_of(node)
        if where and not implicit:  # a backward in another file of the project: its line is there
            label = f"{label} ({where}:{getattr(node, 'lineno', '?')})"
        for tensor in self.interp.tensors_in(value):
            line = None if implicit or where else getattr(node, "lineno", None)
            saves = sorted((item for item in tensor.graph if isinstance(item, Save)), key=lambda s: s.seq)
            for save in saves:
                if save in self.consumed or not compatible(save.path, frame.path):
                    continue
                for write in save.group.writes:
                    if write.seq <= save.seq or write.allowed:
                        continue
                    if not (compatible(write.path, save.path) and compatible(write.path, frame.path)):
                        continue
                    if write.maybe_not_tensor and not save.certain:
                        continue  # a value that may be a number, saved by an op that may not save it: nothing known
                    self.report.invalidated(write, save, label, line, certain=save.certain and write.certain,
                                            move=move_facts(self.interp, frame, write, tensor, self.parameters_of))
            if not implicit:
                for item in tensor.graph:
                    if isinstance(item, LeafUse):
                        item.group.has_grad = True
            if not retain:
                for save in saves:
                    if set(save.path) <= set(frame.path):
                        self.consumed.add(save)

    # =========================================================================================== ops
    def apply_op(self, entry, op: str, args: list, kwargs: dict, node: ast.AST, frame: Frame, *,
                 result_is_tensor: Tri = True, inplace_target: TensorValue | None = None,
                 arg_nodes: list | None = None) -> Value:
        """Run an op from the table: outputs, requires-grad, view-ness, and the saves it records.

        `arg_nodes` are the expressions of `args` (None where unknown), so that a save records where its saved
        input is written in the op."""
        at = entry.list_position() if entry is not None and hasattr(entry, "list_position") else None
        if at is not None and len(args) > at and not (len(args) == at + 1 and isinstance(args[at], SeqValue)):
            # `torch.einsum(eq, a, b)` is `torch.einsum(eq, [a, b])`: the measured list is every operand.
            args = [*args[:at], SeqValue(list(args[at:]))]
            arg_nodes = None
        tensors = self.tensors(list(args) + list(kwargs.values()))
        rg_out = self.output_rg(frame, tensors, entry is None or entry.differentiable)
        graph = self.graph_of(tensors, rg_out)
        label = self.text(node)
        facts = [self.fact(a) for a in args]
        kwfacts = {k: self.fact(v) for k, v in kwargs.items()}
        outputs: list[TensorValue]
        view = "never"
        if inplace_target is not None:
            outputs = [inplace_target]
        else:
            first = args[0] if args else None
            if entry is not None:
                view = entry.view_for(facts, kwfacts) if hasattr(entry, "view_for") else entry.view
            count = entry.outputs_for(facts, kwfacts) if entry is not None and hasattr(entry, "outputs_for") else 1
            if isinstance(first, TensorValue) and view == "always":
                outputs = [TensorValue(first.group, rg_out, first.leaf_rg, graph, label, first.maybe_groups,
                                       first.is_tensor if result_is_tensor is None else True, view=True)]
            else:
                outputs = [self.fresh_tensor(node, rg_out, label if count == 1 else f"{label}[{i}]", graph=graph,
                                             is_tensor=result_is_tensor) for i in range(max(count, 1))]
                if isinstance(first, TensorValue) and view == "sometimes":
                    for out in outputs:
                        out.maybe_groups = tuple(g for g, _ in first.all_groups())
            if entry is not None:
                relation = entry.dtype_for(facts, kwfacts) if hasattr(entry, "dtype_for") else entry.dtype
                outputs[0].dtype = dtypes.of_op(relation, [t.dtype for t in tensors])
        result: Value = outputs[0] if len(outputs) == 1 else SeqValue(list(outputs))
        if rg_out is False:
            if inplace_target is None:
                for out in outputs:
                    out.graph = frozenset()
            return result
        if entry is not None:
            self.library_writes(entry, op, args, kwargs, facts, kwfacts, node, frame, arg_nodes,
                                skip_self=inplace_target is not None)
        new_saves: list[Save] = []
        if entry is not None:
            for saved in entry.saves(facts, kwfacts):
                target = self._saved_value(saved.item, args, kwargs, outputs)
                if target is None or (inplace_target is not None and saved.item == "input:0"):
                    continue
                certain = saved.certain and rg_out is True and frame.grad_mode is True
                if saved.item.startswith("output"):
                    role = "output" if len(outputs) == 1 else f"output {saved.item.partition(':')[2] or '0'}"
                elif saved.item == "input:0" or len(tensors) == 1:
                    role = "input"
                elif isinstance(target, SeqValue):
                    role = "operands"
                else:
                    role = f"input `{getattr(target, 'label', '?')}`"
                operand, clonable = self._save_site(saved.item, node, arg_nodes, len(outputs), view,
                                                    inplace_target is not None)
                new_saves += self.record_save(frame, target, op, role, node, certain, operand=operand,
                                              clonable=clonable)
        else:
            for target in [t for t in tensors if t.is_tensor is True] + outputs:
                role = "output" if target in outputs else f"input `{target.label}`"
                new_saves += self.record_save(frame, target, op, role, node, False)
        for out in outputs:
            out.graph = (graph | out.graph if inplace_target is not None else graph) | frozenset(new_saves)
        if inplace_target is None and len(outputs) > 1 and op in INDEX_OUTPUTS:
            for out in outputs[INDEX_OUTPUTS[op]:]:
                out.rg, out.graph, out.dtype = False, frozenset(), "int64"  # integer indices never require grad
        if inplace_target is not None:
            inplace_target.rg = tri_or(inplace_target.rg, rg_out)
        return result

    def library_writes(self, entry, op: str, args: list, kwargs: dict, facts: list, kwfacts: dict, node: ast.AST,
                       frame: Frame, arg_nodes: list | None, *, skip_self: bool) -> None:
        """The arguments a library call writes in place, as the table measured (`F.embedding(x, w, max_norm=1.0)`
        renormalises `w`): a version bump on each, with no leaf check (torch writes them under no_grad)."""
        for written in entry.writes(facts, kwfacts):
            if not written.certain or (skip_self and written.item == "input:0"):
                continue
            target = self._saved_value(written.item, args, kwargs, [])
            if not isinstance(target, TensorValue):
                continue
            key = written.item.split(":", 1)[1]
            expr = (arg_nodes[int(key)] if key.isdigit() and arg_nodes is not None and int(key) < len(arg_nodes)
                    else self._kw_node(node, key) if isinstance(node, ast.Call) else None)
            pname = entry.signature[int(key)] if key.isdigit() and entry.signature and int(key) < len(
                entry.signature) else key
            why = f"measured under torch: `{op}` called like this bumps the version of its `{pname}`"
            site = self.site(node, "library", op, written=expr, frame=frame, extra=(("library", why),))
            self.record_write(frame, target, site, self._label(target, expr if expr is not None else node),
                              leaf_check=False)

    def module_library_writes(self, module: ModuleValue, args: list, kwargs: dict, node: ast.Call,
                              frame: Frame) -> None:
        """Parameters and buffers a `torch.nn` module's forward writes in place through the one function it calls
        (`nn.Embedding(max_norm=1.0)` calls `F.embedding`, which renormalises the weight), as the table measured
        with the constructor's arguments of this module."""
        entry = module.entry
        function = self.table.function(entry.delegate) if self.table and entry.delegate else None
        if function is None:
            return
        values: dict[str, Value] = {}
        for pname, source in entry.delegate_arguments.items():
            what, _, name = source.partition(":")
            if what == "input":
                index = int(name) if name.isdigit() else 0
                value = kwargs.get(name) if name and not name.isdigit() else args[index] if index < len(args) else None
            elif what == "param":
                value = module.params.get(name)
            elif what == "buffer":
                value = module.buffers.get(name)
            else:
                value = module.constructor.get(name)  # left out: the function's default
            if value is not None:
                values[pname] = value
        for written in function.writes([], {k: self.fact(v) for k, v in values.items()}):
            pname = written.item.split(":", 1)[1]
            source = entry.delegate_arguments.get(pname, "")
            if not written.certain or not source.startswith(("param:", "buffer:")) or pname not in values:
                continue
            target = values[pname]
            ctor = module.node
            owned = source.split(":", 1)[1]
            what = f"`{owned}`" if owned == pname else f"`{owned}` (its `{pname}`)"
            why = (f"measured under torch: `nn.{module.kind}` calls `{entry.delegate}`, which, with the constructor "
                   f"arguments at line {getattr(ctor, 'lineno', '?')}, writes the module's {what}")
            site = self.site(node, "library", entry.delegate.rpartition(".")[2], frame=frame,
                             extra=(("library", why),))
            self.record_write(frame, target, site, getattr(target, "label", pname), leaf_check=False)

    def keeps_written(self, frame: Frame, written: TensorValue, op: str, node: ast.AST) -> list[Save]:
        """The save of an in-place op that keeps the tensor it wrote for the backward (`leaky_relu_` keeps its
        result where `leaky_relu` keeps its input; measured by the table), made after its write."""
        certain = written.rg is True and frame.grad_mode is True
        return self.record_save(frame, written, op, "output", node, certain)

    @staticmethod
    def _save_site(item: str, node: ast.AST, arg_nodes: list | None, outputs: int, view: str,
                   inplace: bool) -> tuple[ast.AST | None, bool]:
        """For one saved item of a table op: the saved input's expression, and whether `.clone()` at the save
        is exact (an output: one fresh output of an op that is not in place; an input: one the output does not
        alias, written out in the op)."""
        if item.startswith("output"):
            return None, not inplace and outputs == 1 and view == "never"
        key = item.split(":", 1)[1] if ":" in item else "0"
        operand = None
        if key.isdigit():
            index = int(key)
            if arg_nodes is not None and index < len(arg_nodes):
                operand = arg_nodes[index]
            if index == 0 and (view != "never" or inplace):
                return operand, False
        elif isinstance(node, ast.Call):
            operand = next((kw.value for kw in node.keywords if kw.arg == key), None)
        return operand, operand is not None

    @staticmethod
    def _saved_value(item: str, args: list, kwargs: dict, outputs: list) -> Value | None:
        if item.startswith("output"):
            index = int(item.partition(":")[2] or 0)
            # One abstract output stands for all of them when the table does not say how many there are.
            return outputs[index] if index < len(outputs) else outputs[0]
        key = item.split(":", 1)[1] if ":" in item else "0"
        if key.isdigit():
            index = int(key)
            return args[index] if index < len(args) else None
        return kwargs.get(key)

    def generic_op(self, op: str, args: list, kwargs: dict, node: ast.AST, frame: Frame, *,
                   is_tensor: Tri = None, receiver: TensorValue | None = None) -> Value:
        """A call the analysis cannot see into: it may save any definite tensor argument.

        Its output is not taken as saved: nothing says the callee is an op that keeps its result (most unknown
        callees are layers whose output nothing saved), and a warning must name a concrete way the code breaks.
        Only a tensor `receiver` (`t.unknown_method(...)`) may be aliased by the result.
        """
        values = ([receiver] if receiver is not None else []) + list(args) + list(kwargs.values())
        tensors = self.tensors(values)
        if not tensors:
            return UNKNOWN
        rg_out = self.output_rg(frame, tensors)
        graph = self.graph_of(tensors, rg_out)
        result = self.fresh_tensor(node, rg_out, self.text(node), graph=graph, is_tensor=is_tensor)
        if receiver is not None:
            result.maybe_groups = tuple(g for g, _ in receiver.all_groups())
        if rg_out is False:
            return result
        saves: list[Save] = []
        for target in [t for t in tensors if t.is_tensor is True]:
            saves += self.record_save(frame, target, op, f"input `{target.label}`", node, False)
        result.graph = graph | frozenset(saves)
        return result

    # =========================================================================================== attributes
    def attribute(self, base: Value, attr: str, node: ast.AST, frame: Frame) -> Value:
        """`base.attr`."""
        if isinstance(base, QualName):
            return QualName(f"{base.name}.{attr}")
        if isinstance(base, ModuleNamespace):
            return base.env.get(attr, UNKNOWN)
        if isinstance(base, TensorValue):
            return self.tensor_attribute(base, attr, node)
        if isinstance(base, ModuleValue):
            if attr in base.params:
                return base.params[attr]
            if attr in base.buffers:
                return base.buffers[attr]
            if attr == "training":
                return truth_value(base.training)
            return MethodRef(base, attr)
        if isinstance(base, InstanceValue):
            if attr in base.attrs:
                return base.attrs[attr]
            if attr == "training" and base.cls.is_module:
                return truth_value(base.training)  # True once built, False after `eval()`
            found = self.interp.lookup_class_attr(base.cls, attr)
            if isinstance(found, FunctionValue):
                if found.kind == "property":
                    return self.call_function(found, [], {}, node, frame, self_value=base)
                if found.kind == "staticmethod":
                    return found
                return BoundMethod(base.cls if found.kind == "classmethod" else base, found)
            if found is not None:
                return found
            return MethodRef(base, attr)
        if isinstance(base, ClassValue):
            found = self.interp.lookup_class_attr(base, attr)
            if isinstance(found, FunctionValue) and found.kind == "classmethod":
                return BoundMethod(base, found)
            return found if found is not None else UNKNOWN
        if isinstance(base, ScalarValue):
            return SCALAR
        return MethodRef(base, attr)

    def tensor_attribute(self, base: TensorValue, attr: str, node: ast.AST) -> Value:
        if attr == "data":
            data_group = base.group.data_group
            if data_group is None:
                data_group = Group(label=f"{base.group.label}.data", line=getattr(node, "lineno", 0),
                                   origin="data", silent_of=base.group)
                base.group.data_group = data_group
            return TensorValue(data_group, False, False, frozenset(), f"{base.label}.data", is_tensor=base.is_tensor,
                               dtype=base.dtype)
        if attr == "grad":
            grad = base.group.grad_value
            if grad is None:
                grad = TensorValue(Group(label=f"{base.group.label}.grad", line=getattr(node, "lineno", 0),
                                         origin="grad"), False, False, frozenset(), f"{base.label}.grad")
                base.group.grad_value = grad
            return grad
        if attr in VIEW_ATTRS:
            return TensorValue(base.group, base.rg, base.leaf_rg, base.graph, self.text(node), base.maybe_groups,
                               base.is_tensor, view=True, dtype=base.dtype)
        if attr in SCALAR_ATTRS:
            return SCALAR
        return MethodRef(base, attr)

    # =========================================================================================== calls
    def call(self, node: ast.Call, frame: Frame) -> Value:
        """Evaluate a call expression."""
        func = self.interp.eval(node.func, frame)
        args: list[Value] = []
        spreads_known = True  # every `*x` and `**x` of the call has known content
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                spread = self.interp.eval(arg.value, frame)
                items = self.interp.iteration_items(spread)
                args.extend(items if items is not None else [UNKNOWN])
                spreads_known = spreads_known and items is not None and not (
                    isinstance(spread, SeqValue) and (spread.imprecise or spread.open_ended))
            else:
                args.append(self.interp.eval(arg, frame))
        kwargs: dict[str, Value] = {}
        for kw in node.keywords:
            value = self.interp.eval(kw.value, frame)
            if kw.arg is not None:
                kwargs[kw.arg] = value
            elif isinstance(value, DictValue):  # `**dd` with `dd = {"device": device, "dtype": dtype}`
                kwargs.update((k, v) for k, v in value.items.items() if isinstance(k, str))
            else:
                spreads_known = False
        if spreads_known:
            self._known_spreads.add(id(node))
        try:
            return self.dispatch(func, args, kwargs, node, frame)
        finally:
            self._known_spreads.discard(id(node))

    def dispatch(self, func: Value, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Call an evaluated callee."""
        if isinstance(func, LazyImport):
            func = func.fallback if self.interp.loading else self.interp.resolve_lazy(func)
        if isinstance(func, QualName):
            return self.call_qualname(func.name, args, kwargs, node, frame)
        if isinstance(func, MethodRef):
            return self.call_method(func.receiver, func.name, args, kwargs, node, frame)
        if isinstance(func, FunctionValue):
            return self.call_function(func, args, kwargs, node, frame)
        if isinstance(func, BoundMethod):
            return self.call_function(func.function, args, kwargs, node, frame, self_value=func.instance)
        if isinstance(func, ClassValue):
            return self.instantiate(func, args, kwargs, node, frame)
        if isinstance(func, ModuleValue):
            return self.call_module(func, args, kwargs, node, frame)
        if isinstance(func, InstanceValue):
            return self.call_instance(func, args, kwargs, node, frame)
        if isinstance(func, SuperValue):
            return func
        return self.generic_op("call", args, kwargs, node, frame)

    # ------------------------------------------------------------------------------------ qualified names
    def call_qualname(self, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Calls of importable names: torch functions, nn classes, optimizers, builtins."""
        if name.startswith("builtins."):
            return self.call_builtin(name[9:], args, kwargs, node, frame)
        if name in GRAD_CONTEXTS:
            return GradModeCtx(GRAD_CONTEXTS[name])
        if name in SET_GRAD_ENABLED:
            ctx = GradModeCtx(const_bool(node.args[0]) if node.args else None)
            ctx.applies_now = True
            return ctx
        if name in ALLOW_MUTATION:
            return AllowMutationCtx()
        if name in PASSTHROUGH and args:
            return args[0]
        if name in ("torch.autograd.backward",):
            if args:
                self.backward(frame, args[0], node, f"`{self.text(node.args[0])}`", retain=self._retains(node))
            return SCALAR
        if name in ("torch.autograd.grad",):
            if args:
                self.backward(frame, args[0], node, f"`{self.text(node.args[0])}`", retain=self._retains(node))
            return UNKNOWN
        if name.startswith("torch.Tensor.") and args:
            return self.call_method(args[0], name.rsplit(".", 1)[1], args[1:], kwargs, node, frame)
        last = name.rsplit(".", 1)[-1]
        if name in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
            rg = self._requires_grad_kw(node)
            rg = True if rg is None else rg
            value = self.fresh_tensor(node, rg, self.text(node), leaf=True, origin="param",
                                      detail=f"an nn.Parameter created at line {node.lineno}")
            value.dtype = args[0].dtype if args and isinstance(args[0], TensorValue) else None
            return value
        if name.startswith("torch.nn.init.") and last.endswith("_") and args:
            self.record_write(frame, args[0], self.site(node, "method", last, written=node.args[0] if node.args else None, frame=frame), self._label(args[0], node.args[0] if node.args else node), leaf_check=False)
            return args[0]
        if name.startswith("torch.optim.") and last[:1].isupper() and "lr_scheduler" not in name:
            return self.make_optimizer(last, args, kwargs, node)
        if name.startswith("torch.nn.") and last[:1].isupper() and ".functional." not in name:
            return self.make_module(last, args, kwargs, node)
        if name == "itertools.chain" and args and all(isinstance(a, (SeqValue, ParamsValue)) for a in args):
            return self.concatenate(list(args), node)
        if name.startswith("numpy."):
            self.numpy_call(name, args, kwargs, node, frame)
            if last in ("asarray", "asanyarray", "from_dlpack") and args and isinstance(args[0], TensorValue):
                return self.numpy_alias(args[0], node)  # np.asarray(t) shares t's memory (CPU)
            return UNKNOWN  # a NumPy array: autograd records nothing NumPy does
        if not name.startswith("torch.") and name != "torch":
            return self.generic_op(last, args, kwargs, node, frame, is_tensor=None)
        # torch functions
        out = kwargs.pop("out", None)
        entry = self.lookup_function(name)
        if out is not None:
            return self.write_out(frame, out, node, last)
        if last.endswith("_") and not last.startswith("_") and args and isinstance(args[0], TensorValue):
            # torch.relu_(x), torch._VF.dropout_(x, ...): in-place functions write their first argument.
            target = args[0]
            self.record_write(frame, target, self.site(node, "method", last, written=node.args[0], frame=frame,
                                                       operands=self.operand_pairs(node, args[1:], skip=1)),
                              self._label(target, node.args[0]))
            base = self.lookup_function(name[:-1])
            if base is None:
                return target
            return self.apply_op(base, last[:-1], args, kwargs, node, frame, inplace_target=target,
                                 arg_nodes=self.arg_nodes(node, args))
        inplace_value, inplace_certain = self._inplace_flag(node, entry)
        if inplace_value is not False and args and isinstance(args[0], TensorValue):
            inplace_ops = self.table.inplace_functions() if self.table else {}
            op = inplace_ops.get(name, last + "_")
            target = args[0]
            self.record_write(frame, target, self.site(node, "inplace_kw", op, written=node.args[0], frame=frame),
                              self._label(target, node.args[0]),
                              certain=inplace_certain)
            if inplace_value is True:
                kwargs.pop("inplace", None)
                result = self.apply_op(entry, last, args, kwargs, node, frame, inplace_target=target,
                                       arg_nodes=self.arg_nodes(node, args))
                if self.table and self.table.inplace_saves_written(name) and target.rg is not False \
                        and frame.grad_mode is not False:
                    target.graph = target.graph | frozenset(self.keeps_written(frame, target, op, node))
                return result
        kwargs.pop("inplace", None)
        if not self.tensors(list(args) + list(kwargs.values())) or self._kw_node(node, "requires_grad") is not None:
            # A factory (torch.zeros, torch.tensor, and torch.zeros_like(x): only factories take `requires_grad=`).
            made = self.factory_leaf(node)
            named = kwargs.get("dtype")
            if isinstance(named, QualName):
                made.dtype = dtypes.dtype_named(named.name)
            elif named is None and self.table and self.default_float():
                made.dtype = self.table.factory_dtype(name)
            return made
        if entry is None:
            return self.generic_op(last, args, kwargs, node, frame, is_tensor=True)
        return self.apply_op(entry, last, args, kwargs, node, frame, arg_nodes=self.arg_nodes(node, args))

    PRIVATE_NAMESPACES = ("torch._VF.", "torch._C._VariableFunctions.", "torch._C._nn.", "torch.ops.aten.",
                          "torch._C._linalg.", "torch._C._special.", "torch._C._fft.")

    def lookup_function(self, name: str):
        """The table entry of a torch function, also when it is called through a private namespace."""
        if not self.table:
            return None
        entry = self.table.function(name)
        if entry is not None:
            return entry
        for prefix in self.PRIVATE_NAMESPACES:
            if name.startswith(prefix):
                short = name[len(prefix):].split(".")[0]  # torch.ops.aten.mul.Tensor -> mul
                short = short[:-1] if short.endswith("_") and not short.endswith("__") else short
                for candidate in (f"torch.{short}", f"torch.nn.functional.{short}"):
                    entry = self.table.function(candidate)
                    if entry is not None:
                        return entry
                return self.table.method(short)
        return None

    def _inplace_flag(self, node: ast.Call, entry) -> tuple[Tri | bool, bool]:
        """Whether a functional call runs in place: (True/None/False, certain)."""
        for kw in node.keywords:
            if kw.arg == "inplace":
                value = const_bool(kw.value)
                if value is None:
                    return None, False
                return value, True
        if entry is not None and entry.inplace_param and entry.signature and "inplace" in entry.signature:
            index = entry.signature.index("inplace")
            if index < len(node.args):
                value = const_bool(node.args[index])
                return (value, True) if value is not None else (None, False)
        return False, True

    def write_out(self, frame: Frame, out: Value, node: ast.Call, op: str) -> Value:
        """`op(..., out=buf)` writes `buf` in place (autograd refuses out= when an input requires grad)."""
        site = self.site(node, "out", op, written=self._kw_node(node, "out"), frame=frame)
        self.record_write(frame, out, site, self._label(out, node, kw="out"))
        return out

    def factory_leaf(self, node: ast.Call) -> TensorValue:
        """What a factory call makes (`torch.zeros(...)`, `x.new_zeros(...)`): a fresh leaf, requiring grad when its
        `requires_grad=` says so."""
        rg = self._requires_grad_kw(node)
        detail = f"created with requires_grad=True at line {node.lineno}" if rg else ""
        return self.fresh_tensor(node, bool(rg), self.text(node), leaf=True, detail=detail)

    @staticmethod
    def _requires_grad_kw(node: ast.Call) -> Tri:
        """The literal `requires_grad=` of a call, if any."""
        return const_bool(next((k.value for k in node.keywords if k.arg == "requires_grad"), None))

    @staticmethod
    def _kw_node(node: ast.Call, name: str) -> ast.AST | None:
        return next((kw.value for kw in node.keywords if kw.arg == name), None)

    def _retains(self, node: ast.Call) -> bool:
        for kw in node.keywords:
            if kw.arg in ("retain_graph", "create_graph") and const_bool(kw.value) is not False:
                return True
        return False

    def _label(self, value: Value, node: ast.AST, kw: str = "") -> str:
        """How the user wrote the written tensor: the source of its expression (or of the `kw=` argument)."""
        if kw and isinstance(node, ast.Call):
            for keyword in node.keywords:
                if keyword.arg == kw:
                    return self.text(keyword.value)
        if isinstance(node, ast.expr):
            return self.text(node)  # a call's result is a temporary: named by the call
        return getattr(value, "label", None) or self.text(node)

    def call_builtin(self, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        if name == "range":
            # A name `range` took is an integer from here on (a Python int, or an integer tensor, which cannot
            # require grad): `y / n` in the loop saves nothing of the tensor it scales.
            for arg_node, value in zip(node.args, args):
                if isinstance(arg_node, ast.Name) and not isinstance(value, ScalarValue) \
                        and getattr(value, "is_tensor", None) is not True and arg_node.id in frame.env:
                    frame.env[arg_node.id] = ScalarValue(kind="number")
            # `range(3)` with known bounds: its numbers, so a loop over it runs each iteration with its index.
            bounds = [known_int(a) for a in args]
            if 1 <= len(bounds) <= 3 and not kwargs and (len(bounds) < 3 or bounds[2] != 0) \
                    and all(b is not None for b in bounds):
                numbers = range(*bounds)  # type: ignore[arg-type]
                if len(numbers) <= MAX_UNROLL:
                    return SeqValue([constant_value(n) for n in numbers])
            return ScalarValue(is_range=True)
        if name == "len" and len(args) == 1:
            value = args[0]
            if isinstance(value, SeqValue) and not value.imprecise and not value.open_ended:
                return constant_value(len(value.items))
            if isinstance(value, ScalarValue) and value.is_str and value.known:
                return constant_value(len(value.constant))  # type: ignore[arg-type]
            return ScalarValue(kind="number")
        if name in ("list", "tuple") and args:
            return args[0] if isinstance(args[0], (SeqValue, ParamsValue)) else UNKNOWN
        if name in ("isinstance", "hasattr") and len(args) == 2:
            known = self._builtin_truth(name, args[0], args[1])
            if known is not None:
                return truth_value(known)
        if name == "enumerate" and args:
            items = self.interp.iteration_items(args[0])
            if items is not None:
                return SeqValue([SeqValue([constant_value(index), item]) for index, item in enumerate(items)])
            return UNKNOWN
        if name == "zip" and args:
            lists = [self.interp.iteration_items(a) for a in args]
            if all(lst is not None for lst in lists):
                return SeqValue([SeqValue(list(group)) for group in zip(*lists)])  # type: ignore[arg-type]
            known = [lst for lst in lists if lst is not None]
            if not known:
                return UNKNOWN
            # `zip(detect.m, detect.stride)`: as many steps as the known items (the others may stop it sooner, as
            # a loop of unknown length may not run at all), each with one element of the unknown iterables.
            count = min(len(lst) for lst in known)
            elements = [self.interp.element_value(a, None) if lst is None else None for a, lst in zip(args, lists)]
            return SeqValue([SeqValue([lst[index] if lst is not None else element
                                       for lst, element in zip(lists, elements)]) for index in range(count)])
        if name == "sum" and args:
            items = self.interp.iteration_items(args[0]) or []
            tensors = [t for t in items if isinstance(t, TensorValue)]
            if tensors:
                return self.generic_sum(tensors, node, frame)
            return UNKNOWN
        if name in ("max", "min") and args:
            if len(args) == 1:
                return UNKNOWN
            if any(isinstance(a, ScalarValue) and not a.is_str for a in args) and not any(
                    getattr(a, "is_tensor", None) is True for a in args):
                # `min(x.shape[2], n)`: compared with a Python number, the others are numbers too (a tensor here
                # would be a one-element one, which code that compares sizes does not pass).
                return ScalarValue(kind="number")
            result = args[0]

            for a in args[1:]:
                result = join_values(result, a)
            return result
        if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            return self.attribute(args[0], str(node.args[1].value), node, frame)
        if name == "super":
            return SuperValue(frame)
        if name == "dict" and not args:
            return DictValue(dict(kwargs))
        if name in ("print", "len", "int", "float", "bool", "str", "isinstance", "hasattr", "id", "hash", "repr",
                    "round", "callable", "issubclass", "format", "sorted", "set", "dict", "frozenset", "type",
                    "setattr", "delattr", "open", "input", "vars", "dir", "any", "all", "ord", "chr"):
            return SCALAR
        if name == "abs" and args and isinstance(args[0], TensorValue):
            return self.call_method(args[0], "__abs__", [], {}, node, frame)
        return UNKNOWN

    _BUILTIN_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "complex": complex, "bytes": bytes,
                      "list": list, "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset}

    def _builtin_truth(self, name: str, value: Value, what: Value) -> bool | None:
        """`isinstance(c, str)` / `hasattr(c, "__iter__")` for a constant the analysis knows (a literal passed
        down): evaluated on the constant itself, which is a plain Python value."""
        if isinstance(value, ModuleValue) and name == "isinstance":
            return self._module_isinstance(value, what)
        if isinstance(value, SeqValue):
            # A tuple or a list (which one is not tracked): decided when both answer alike.
            answers = {self._sample_truth(name, sample, what) for sample in ([], ())}
            return answers.pop() if len(answers) == 1 else None
        if not (isinstance(value, ScalarValue) and value.known):
            return None
        return self._sample_truth(name, value.constant, what)

    def _module_isinstance(self, module: ModuleValue, what: Value) -> bool | None:
        """`isinstance(layer, nn.Conv2d)` for a torch module the analysis built: by its class, when every class
        asked about is a torch module class of the table (a subclass of another one is not told apart)."""
        classes = self._classes(what)
        if not classes or not self.table:
            return None
        answer = False
        for item in classes:
            if not (isinstance(item, QualName) and item.name.startswith("torch.nn.")):
                return None
            kind = item.name.rsplit(".", 1)[-1]
            if kind in ("Module", module.kind):
                answer = True
            elif self.table.module(kind) is None:
                return None  # a base class (`_ConvNd`, `Module` subclasses) or a class the table does not know
        return answer

    @staticmethod
    def _classes(what: Value) -> list:
        """The classes `isinstance(x, what)` asks about: one name, or a tuple of them."""
        return [what] if isinstance(what, QualName) else list(what.items) if isinstance(what, SeqValue) else []

    def _sample_truth(self, name: str, sample: object, what: Value) -> bool | None:
        if name == "hasattr":
            if isinstance(what, ScalarValue) and what.is_str and what.known:
                return hasattr(sample, what.constant)  # type: ignore[arg-type]
            return None
        types = []
        for item in self._classes(what):
            kind = self._BUILTIN_TYPES.get(item.name[9:]) if isinstance(item, QualName) and \
                item.name.startswith("builtins.") else None
            if kind is None:
                return None
            types.append(kind)
        return isinstance(sample, tuple(types)) if types else None

    def concatenate(self, parts: list, node: ast.AST) -> Value:
        """`list(a.parameters()) + list(b.parameters())`, `itertools.chain(...)`: one list of the parts' items."""
        if any(isinstance(p, ParamsValue) for p in parts):
            params: list = []
            for part in parts:
                params.extend(part.params if isinstance(part, ParamsValue) else
                              [t for t in part.items if isinstance(t, TensorValue)])
            labels = [p.label for p in parts if isinstance(p, ParamsValue)]
            return ParamsValue(params, " and ".join(labels) if labels else self.text(node))
        items: list = []
        for part in parts:
            items.extend(part.items)
        return SeqValue(items)

    def generic_sum(self, tensors: list[TensorValue], node: ast.AST, frame: Frame) -> Value:
        """`sum(list_of_tensors)`: additions save nothing; the result needs every input's saves."""
        rg = tri_or(*[t.rg for t in tensors]) if frame.grad_mode is not False else False
        return self.fresh_tensor(node, rg, self.text(node), graph=self.graph_of(tensors, rg))

    # ------------------------------------------------------------------------------------ tensor methods
    def call_method(self, receiver: Value, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`receiver.name(...)` for any receiver."""
        if not isinstance(receiver, (TensorValue, ModuleValue, InstanceValue, OptimizerValue, SeqValue, DictValue,
                                     SuperValue)) or (isinstance(receiver, TensorValue) and receiver.is_tensor is None):
            self.interp.unresolved_method_modes.setdefault(name, set()).add(frame.grad_mode)
        if isinstance(receiver, TensorValue):
            return self.tensor_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, (ModuleValue, InstanceValue)):
            return self.module_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, OptimizerValue):
            if name == "step":
                self.optimizer_step(receiver, node, frame)
            elif name == "zero_grad":
                self.zero_grad(receiver.params, node)
            return SCALAR
        if isinstance(receiver, SeqValue):
            if frame.path:
                receiver.imprecise = True  # items now depend on the path taken
                if name in ("append", "insert") and args and isinstance(args[-1], ModuleValue):
                    args[-1].maybe_absent = True  # a Sequential built from the list may not run it
            if frame.loop_tags:
                receiver.open_ended = True
            if name in ("append", "insert") and args:
                receiver.items.append(args[-1])
            elif name == "extend" and args:
                receiver.items.extend(self.interp.iteration_items(args[0]) or [])
            return SCALAR if name in ("append", "insert", "extend") else UNKNOWN
        if isinstance(receiver, DictValue):
            return self.dict_method(receiver, name, args, node)
        if isinstance(receiver, SuperValue):
            return self.super_call(receiver, name, args, kwargs, node, frame)
        if name == "step" and args and isinstance(args[0], OptimizerValue):  # scaler.step(optimizer)
            self.optimizer_step(args[0], node, frame)
            return SCALAR
        if name == "backward" and isinstance(receiver, UnknownValue):
            return SCALAR
        return self.generic_op(name, args, kwargs, node, frame, is_tensor=None)

    def dict_method(self, d: DictValue, name: str, args: list, node: ast.Call) -> Value:
        """get/values/items/update/setdefault on a dict with known keys."""
        key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if name == "get":
            if key in d.items:
                return d.items[key]
            return args[1] if len(args) > 1 else UNKNOWN
        if name == "values":
            return SeqValue(list(d.items.values()))
        if name == "items":
            return SeqValue([SeqValue([SCALAR, v]) for v in d.items.values()])
        if name == "setdefault" and key is not None:
            return d.items.setdefault(key, args[1] if len(args) > 1 else SCALAR)
        if name == "update" and args and isinstance(args[0], DictValue):
            d.items.update(args[0].items)
        elif name == "pop" and key is not None:
            return d.items.pop(key, args[1] if len(args) > 1 else UNKNOWN)
        return UNKNOWN

    def tensor_method(self, t: TensorValue, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        if name == "backward":
            self.backward(frame, t, node, f"`{self._receiver_text(node)}`", retain=self._retains(node))
            return SCALAR
        if name == "detach":
            return TensorValue(t.group, False, False, frozenset(), self.text(node), t.maybe_groups, t.is_tensor,
                               detached=True, dtype=t.dtype)
        if name == "detach_":
            t.rg, t.graph = False, frozenset()
            return t
        if name == "numpy":
            return self.numpy_alias(t, node)
        if name == "new":
            # The legacy constructor: a new tensor (on a storage or of a size) that needs no grad.
            return self.fresh_tensor(node, False, self.text(node), is_tensor=True)
        if name.startswith("new_") and self._kw_node(node, "requires_grad") is not None:
            made = self.factory_leaf(node)  # `x.new_zeros(n, requires_grad=True)`
            made.dtype = t.dtype if self._kw_node(node, "dtype") is None else None
            return made
        if t.group.origin == "numpy":
            if name in NDARRAY_COPIES:
                return UNKNOWN  # a new array: no longer the tensor's memory
            if name in NDARRAY_WRITES:
                site = self.site(node, "method", name, written=node.func.value, frame=frame)
                self.record_write(frame, t, site, self._label(t, node.func.value), leaf_check=False)
                return SCALAR
            if "out" in kwargs:
                self.numpy_call(f"numpy.ndarray.{name}", args, kwargs, node, frame)
                return UNKNOWN
        if name == "requires_grad_":
            flag = const_bool(node.args[0]) if node.args else True
            flag = True if flag is None and not node.args else flag
            self.set_requires_grad(t, flag, node, "requires_grad_()")
            return t
        if name == "clone":
            rg = t.rg if frame.grad_mode is not False else False
            copy = self.fresh_tensor(node, rg, self.text(node), graph=t.graph if rg is not False else frozenset(),
                                     is_tensor=t.is_tensor)
            copy.dtype = t.dtype
            return copy
        if name in SCALAR_METHODS:
            return SCALAR
        if name in MAYBE_ALIAS_METHODS:
            entry = self.table.method(name) if self.table else None
            if entry is not None and name not in ("to", "type", "contiguous"):
                return self.apply_op(entry, name, [t, *args], kwargs, node, frame,
                                     arg_nodes=self.arg_nodes(node, [t, *args], receiver=True))
            result = self.fresh_tensor(node, t.rg if frame.grad_mode is not False else False, self.text(node),
                                       graph=t.graph, is_tensor=t.is_tensor)
            result.maybe_groups = tuple(g for g, _ in t.all_groups())
            result.leaf_rg = False
            result.dtype = self._converted_dtype(t, name, args, kwargs)
            return result
        if name.endswith("_") and not name.startswith("__"):
            return self.inplace_method(t, name, args, kwargs, node, frame)
        out = kwargs.pop("out", None)
        if out is not None:
            return self.write_out(frame, out, node, name)
        entry = self.table.method(name) if self.table else None
        if entry is None:
            return self.generic_op(name, args, kwargs, node, frame, is_tensor=t.is_tensor, receiver=t)
        if t.is_tensor is None:
            t.is_tensor = True  # a Tensor method was called on it: evidence that it is a tensor
        return self.apply_op(entry, name, [t, *args], kwargs, node, frame,
                             arg_nodes=self.arg_nodes(node, [t, *args], receiver=True))

    def numpy_alias(self, t: TensorValue, node: ast.AST) -> TensorValue:
        """`t.numpy()`: a NumPy array sharing `t`'s memory but not its version counter, so that writing it changes
        `t` silently (as a `.data` write does). Modelled as a group of its own whose writes reach `t`'s."""
        groups = []
        for group, _ in t.all_groups():
            alias = group.numpy_group
            if alias is None:
                alias = Group(label=f"{group.label}.numpy()", line=getattr(node, "lineno", 0), origin="numpy",
                              origin_detail=f"a NumPy array sharing `{group.label}`'s memory (`.numpy()` at line "
                                            f"{getattr(node, 'lineno', 0)})", silent_of=group)
                group.numpy_group = alias
            groups.append(alias)
        return TensorValue(groups[0], False, False, frozenset(), self.text(node), tuple(groups[1:]),
                           is_tensor=t.is_tensor, dtype=t.dtype)

    def numpy_call(self, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> None:
        """NumPy functions that write an array given to them: `out=` and `np.copyto(dst, ...)`; only arrays that
        share a tensor's memory matter here."""
        op = name.rsplit(".", 1)[-1]
        targets: list[tuple[Value, ast.AST | None]] = []
        out = kwargs.get("out")
        if isinstance(out, SeqValue):
            targets += [(item, None) for item in out.items]
        elif out is not None:
            targets.append((out, self._kw_node(node, "out")))
        if op in ("copyto", "put", "place", "putmask", "fill_diagonal") and args:
            targets.append((args[0], node.args[0] if node.args else None))
        for value, written in targets:
            if isinstance(value, TensorValue) and any(g.origin == "numpy" for g, _ in value.all_groups()):
                site = self.site(node, "out", op, written=written, frame=frame)
                self.record_write(frame, value, site, self.text(written) if written is not None else value.label,
                                  leaf_check=False)

    @staticmethod
    def _converted_dtype(t: TensorValue, name: str, args: list, kwargs: dict) -> str | None:
        """The dtype of `t.to(...)`, `t.type(...)`, `t.contiguous()`: the dtype named or of the tensor given, else
        (a device, a memory format) t's own."""
        if name == "contiguous":
            return t.dtype
        if name != "to":
            return None
        for value in [kwargs.get("dtype"), *args]:
            if isinstance(value, QualName) and dtypes.dtype_named(value.name):
                return dtypes.dtype_named(value.name)
            if isinstance(value, TensorValue):
                return value.dtype
        return t.dtype

    def set_requires_grad(self, t: TensorValue, flag: Tri, node: ast.AST, how: str) -> None:
        """`t.requires_grad_(flag)` / `t.requires_grad = flag`.

        Turning it off succeeds only on a leaf (torch raises for a non-leaf), so afterwards `t` is a leaf that does
        not require grad: writing it in grad mode is allowed. Turning it on makes a graph-less tensor a leaf that
        requires grad.
        """
        t.rg = flag
        if flag is False:
            t.leaf_rg = False
        elif not t.graph:
            t.leaf_rg = flag if flag else None
            if flag and not t.group.origin_detail:
                t.group.origin_detail = f"{how} at line {node.lineno}"
                t.group.created = self._created_at(node)

    def inplace_method(self, t: TensorValue, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`t.add_(...)` and friends: a write, then the saves of the out-of-place op on the new value."""
        info = self.table.inplace_method(name) if self.table else None
        if info is not None and info.data_write is False:
            return t
        if info is not None and t.is_tensor is None:
            t.is_tensor = True  # an in-place Tensor method was called on it
        site = self.site(node, "method", name, written=node.func.value if isinstance(node.func, ast.Attribute) else None,
                         frame=frame, operands=self.operand_pairs(node, list(args) + list(kwargs.values())))
        self.record_write(frame, t, site, self._label(t, node.func.value if isinstance(node.func, ast.Attribute) else node))
        out_of_place = (info.out_of_place if info is not None else None) or name[:-1]
        entry = self.table.method(out_of_place) if self.table else None
        if entry is None and self.table:
            entry = self.table.function("torch." + out_of_place)
        if name in ("copy_", "zero_", "fill_", "set_") or entry is None:
            # The old value is gone; the new one comes from the arguments.
            tensors = self.tensors(list(args) + list(kwargs.values()))
            if tensors and frame.grad_mode is not False:
                t.rg = tri_or(t.rg, *[x.rg for x in tensors])
                t.graph = t.graph.union(*[x.graph for x in tensors]) | self.leaf_uses(tensors)
            return t
        return self.apply_op(entry, out_of_place, [t, *args], kwargs, node, frame, inplace_target=t,
                             arg_nodes=self.arg_nodes(node, [t, *args], receiver=True))

    def _receiver_text(self, node: ast.Call) -> str:
        if isinstance(node.func, ast.Attribute):
            return self.text(node.func.value)
        return self.text(node)

    # ------------------------------------------------------------------------------------ modules
    def make_module(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> Value:
        """Construct a `torch.nn` module from its table entry."""
        label = f"<{kind}>"
        module = ModuleValue(kind=kind, label=label, line=node.lineno, node=node)
        if kind in MODULE_CONTAINERS:
            items = args
            if kind == "ModuleList" and args:
                items = self.interp.iteration_items(args[0]) or []
            module.children = [m for m in items if isinstance(m, (ModuleValue, InstanceValue))]
            return module
        entry = self.table.module(kind) if self.table else None
        module.entry = entry
        if entry is not None:
            module.constructor = {**dict(zip(entry.constructor, args)), **kwargs}
            for pname in entry.parameters:
                module.params[pname] = self._param(node, label, pname)
            for bname in entry.buffers:
                module.buffers[bname] = self.fresh_tensor(node, False, f"{label}.{bname}", origin="buffer")
            if entry.inplace_param:
                flag = next((const_bool(k.value) for k in node.keywords if k.arg == "inplace"), None)
                if flag is None and node.args:
                    flag = const_bool(node.args[-1])
                module.inplace = bool(flag)
        return module

    def _param(self, node: ast.AST, owner: str, pname: str) -> TensorValue:
        value = self.fresh_tensor(node, True, f"{owner}.{pname}", leaf=True, origin="param",
                                  detail=f"parameter `{pname}` of the module built at line {node.lineno}")
        value.dtype = self.default_float()
        return value

    def default_float(self) -> str | None:
        """The default dtype, unless the file may change it (`torch.set_default_dtype`)."""
        return None if "set_default_dtype" in self.interp.source else dtypes.DEFAULT_FLOAT

    def module_method(self, module, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Methods of modules: parameters(), eval(), train(), to(), forward(), ..."""
        if name in ("parameters", "named_parameters"):
            return ParamsValue(self.parameters_of(module), f"the parameters of `{module.label}`")
        if name in ("eval", "train"):
            flag = name == "train" and const_bool(node.args[0]) is not False if node.args else name == "train"
            self._set_training(module, flag)
            return module
        if name in ("to", "cuda", "cpu", "float", "double", "half", "bfloat16", "requires_grad_", "type"):
            if name in ("to", "float", "double", "half", "bfloat16", "type"):
                converted = dtypes.CONVERSIONS.get(name) or next(
                    (dtypes.dtype_named(a.name) for a in [kwargs.get("dtype"), *args] if isinstance(a, QualName)), None)
                if converted or name in ("type",) or any(isinstance(a, TensorValue) for a in args):
                    for p in self.parameters_of(module):
                        p.dtype = converted  # (None: converted to a dtype the analysis cannot tell)
            if name == "requires_grad_":
                flag = const_bool(node.args[0]) if node.args else True
                for p in self.parameters_of(module):
                    p.rg = flag
                    p.leaf_rg = flag
            return module
        if name == "forward":
            return self.call_module(module, args, kwargs, node, frame) if isinstance(module, ModuleValue) else \
                self.call_instance(module, args, kwargs, node, frame)
        if name == "zero_grad":
            self.zero_grad(self.parameters_of(module), node)
            return SCALAR
        if name in ("register_buffer", "register_parameter", "apply", "load_state_dict"):
            if name in ("register_buffer", "register_parameter") and isinstance(module, InstanceValue) and node.args:
                key = node.args[0]
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and len(args) > 1:
                    value = args[1]
                    if isinstance(value, TensorValue):
                        value.group.rename(f"self.{key.value}")
                        value.label = f"self.{key.value}"
                    module.attrs[key.value] = value
            return SCALAR
        if name == "add_module" and len(args) > 1:
            # `self.body.add_module("block1", m)`: a container runs it after the others; an instance holds it.
            if isinstance(module, ModuleValue) and module.kind in ("ModuleList", "Sequential"):
                module.children.append(args[1])
            elif isinstance(module, InstanceValue) and isinstance(args[0], ScalarValue) and args[0].is_str \
                    and args[0].known:
                module.attrs[args[0].constant] = args[1]  # type: ignore[index]
            return SCALAR
        if name in ("append", "extend", "insert") and isinstance(module, ModuleValue) \
                and module.kind in ("ModuleList", "Sequential"):
            # `self.blocks.append(Block(...))`: the container holds it (and returns itself).
            if name == "append" and args:
                module.children.append(args[0])
            elif name == "extend" and args:
                module.children.extend(self.interp.iteration_items(args[0]) or [])
            elif name == "insert" and len(args) > 1:
                at = known_int(args[0])
                if at is not None:
                    module.children.insert(at, args[1])
                else:
                    module.children.append(args[1])
            return module
        if name in ("children", "modules"):
            found = self.submodules(module, recursive=name == "modules")
            return SeqValue(([module] if name == "modules" else []) + found)
        return self.generic_op(name, args, kwargs, node, frame, is_tensor=None)

    def submodules(self, module, recursive: bool, seen: set | None = None) -> list:
        """The modules a module holds (a container's items, a class's module attributes and lists of modules), in
        the order it holds them; with `recursive`, theirs too (as `nn.Module.modules()` lists them)."""
        seen = seen if seen is not None else {id(module)}
        direct: list = []
        if isinstance(module, ModuleValue):
            direct = list(module.children)
        elif isinstance(module, InstanceValue):
            for value in module.attrs.values():
                items = value.items if isinstance(value, SeqValue) else [value]
                direct += [item for item in items if isinstance(item, (ModuleValue, InstanceValue))]
        out: list = []
        for child in direct:
            if id(child) in seen:
                continue
            seen.add(id(child))
            out.append(child)
            if recursive:
                out += self.submodules(child, True, seen)
        return out

    @staticmethod
    def _inplace_idle(module: ModuleValue, entry) -> Tri:
        """Whether a module built with `inplace=True` leaves its input unwritten: True when a parameter that the
        table measured as turning the write off at 0 is a known 0 (`Dropout(0.0, inplace=True)`), None when such
        a parameter's value is not known (`Dropout(attn_drop, inplace=True)`), else False."""
        idle: Tri = False
        for name in entry.inplace_idle_when_zero:
            if name not in module.constructor:
                continue  # the default, which the table measured writing
            value = module.constructor[name]
            number = value.constant if isinstance(value, ScalarValue) and value.is_number and value.known else None
            if number is None:
                idle = None
            elif number == 0:
                return True
        return idle

    def _set_training(self, module, flag: bool, seen: set | None = None) -> None:
        """`train()` / `eval()`: the module and every submodule the analysis knows (once each: modules may refer
        to each other)."""
        seen = seen if seen is not None else set()
        if id(module) in seen:
            return
        seen.add(id(module))
        if isinstance(module, ModuleValue):
            module.training = flag
            for child in module.children:
                self._set_training(child, flag, seen)
        elif isinstance(module, InstanceValue):
            module.training = flag
            for value in module.attrs.values():
                if isinstance(value, (ModuleValue, InstanceValue)):
                    self._set_training(value, flag, seen)

    def parameters_of(self, module, seen: set | None = None) -> list[TensorValue]:
        """Every parameter tensor the analysis knows a module holds."""
        seen = seen if seen is not None else set()
        if id(module) in seen:
            return []
        seen.add(id(module))
        out: list[TensorValue] = []
        if isinstance(module, ModuleValue):
            out.extend(module.params.values())
            for child in module.children:
                out.extend(self.parameters_of(child, seen))
        elif isinstance(module, InstanceValue):
            for value in module.attrs.values():
                if isinstance(value, TensorValue) and value.group.origin == "param":
                    out.append(value)
                elif isinstance(value, (ModuleValue, InstanceValue)):
                    out.extend(self.parameters_of(value, seen))
                elif isinstance(value, SeqValue):
                    for item in value.items:
                        if isinstance(item, (ModuleValue, InstanceValue)):
                            out.extend(self.parameters_of(item, seen))
        return out

    def call_module(self, module: ModuleValue, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Apply a `torch.nn` module: what it saves comes from the table."""
        if module.kind == "Sequential":
            value = args[0] if args else UNKNOWN
            inner: list[int] = []
            try:
                for child in module.children:
                    value = self.dispatch(child, [value], {}, node, frame)
                    if isinstance(value, TensorValue) and not value.group.named and value.label == self.text(node):
                        kind = getattr(child, "kind", None) or getattr(getattr(child, "cls", None), "name", "module")
                        value.label = value.group.label = f"output of {kind} in {self.text(node)}"
                    inner.append(id(value))  # the next module's input is a temporary nobody else holds
                    self._intermediates.add(id(value))
            finally:
                self._intermediates.difference_update(inner)
            return value
        if module.kind == "Identity":
            return args[0] if args else UNKNOWN  # nn.Identity returns its input itself
        entry = module.entry
        x = args[0] if args else UNKNOWN
        if entry is None:
            return self.generic_op(module.kind, list(args) + list(module.params.values()), kwargs, node, frame,
                                   is_tensor=True)
        if isinstance(x, TensorValue) and x.is_tensor is None:
            x.is_tensor = True  # the input of a torch.nn module: evidence that it is a tensor
        params = list(module.params.values())
        params_rg = tri_or(*[p.rg for p in params]) if params else False
        input_rg = x.rg if isinstance(x, TensorValue) else (False if isinstance(x, ScalarValue) else None)
        inputs = self.tensors(list(args) + list(kwargs.values()))
        rg_out: Tri = tri_or(input_rg, params_rg) if frame.grad_mode is not False else False
        graph = self.graph_of(inputs, rg_out) | (self.leaf_uses(params) if rg_out is not False else frozenset())
        self.module_library_writes(module, args, kwargs, node, frame)
        idle = self._inplace_idle(module, entry)
        if module.inplace and isinstance(x, TensorValue) and idle is not True:
            op = entry.inplace_method or module.kind.lower() + "_"
            ctor = module.node
            ctor_span = Span(*self.report.span(ctor)) if ctor is not None else None
            # Inside a Sequential, a module after the first writes the previous module's output: a temporary.
            written = node.args[0] if node.args and id(x) not in self._intermediates else None
            label = (self._label(x, node.args[0] if node.args else node) if written is not None
                     else x.label)
            site = self.site(node, "inplace_module", op, module_ctor=ctor_span, written=written, frame=frame)
            if idle is None:
                site.info["module_condition"] = " ".join(f"`{name}`" for name in entry.inplace_idle_when_zero)
            self.record_write(frame, x, site, label, certain=not module.maybe_absent and idle is False)
            result = x
            result.rg = tri_or(x.rg, rg_out) if rg_out is not False else x.rg
        else:
            result = self.fresh_tensor(node, rg_out, self.text(node), graph=graph)
            if isinstance(x, TensorValue):
                result.dtype = dtypes.of_op(entry.dtype, [x.dtype])
        if rg_out is False:
            return result
        saves: list[Save] = []
        if module.inplace and entry.inplace_saves_written and isinstance(x, TensorValue):
            saves += self.keeps_written(frame, result, entry.inplace_method or module.kind, node)
        nodes = self.arg_nodes(node, args)
        for saved in entry.saves(input_rg, params_rg, module.training):
            item = saved.item
            operand, clonable = None, False
            if item == "output":
                target, clonable = result, not module.inplace
            elif item.startswith("input"):
                if module.inplace:
                    continue
                index = int(item.split(":")[1]) if ":" in item else 0
                target = args[index] if index < len(args) else None
                operand = nodes[index] if nodes is not None and index < len(nodes) else None
                clonable = operand is not None
            elif item.startswith("param:"):
                target = module.params.get(item[6:])
            elif item.startswith("buffer:"):
                target = module.buffers.get(item[7:])
            else:
                target = None
            if target is None:
                continue
            role = "output" if item == "output" else ("input" if item.startswith("input") else item.split(":", 1)[1])
            certain = saved.certain and rg_out is True and frame.grad_mode is True
            saves += self.record_save(frame, target, module.kind, role, node, certain, operand=operand,
                                      clonable=clonable)
        result.graph = graph | result.graph | frozenset(saves)
        return result

    def call_instance(self, inst: InstanceValue, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`model(x)` for a file-defined class: runs its `forward` (or `__call__`)."""
        for name in ("forward", "__call__"):
            fn = self.interp.lookup_class_attr(inst.cls, name)
            if isinstance(fn, FunctionValue):
                return self.call_function(fn, args, kwargs, node, frame, self_value=inst)
        params = self.parameters_of(inst)
        return self.generic_op(inst.cls.name, list(args) + params, kwargs, node, frame, is_tensor=None)

    def instantiate(self, cls: ClassValue, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Construct a file-defined class, running its `__init__`."""
        inst = InstanceValue(cls=cls, label=f"<{cls.name}>")
        init = self.interp.lookup_class_attr(cls, "__init__")
        if isinstance(init, FunctionValue):
            self.call_function(init, args, kwargs, node, frame, self_value=inst, constructing=True)
        return inst

    def super_call(self, sup: "SuperValue", name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`super().name(...)`: run the file-defined base's method, if any."""
        inst = sup.instance
        owner = sup.owner
        if isinstance(inst, InstanceValue) and isinstance(owner, ClassValue):
            for base in owner.bases:
                if isinstance(base, ClassValue):
                    fn = self.interp.lookup_class_attr(base, name)
                    if isinstance(fn, FunctionValue):
                        return self.call_function(fn, args, kwargs, node, frame, self_value=inst,
                                                  constructing=name == "__init__")
        return SCALAR if name == "__init__" else UNKNOWN

    # ------------------------------------------------------------------------------------ optimizers
    def make_optimizer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> Value:
        params_arg = args[0] if args else kwargs.get("params", UNKNOWN)
        params: list[TensorValue] = []
        label = "its parameters"
        if isinstance(params_arg, ParamsValue):
            params, label = list(params_arg.params), params_arg.label
        elif isinstance(params_arg, SeqValue):
            for item in params_arg.items:
                if isinstance(item, DictValue):  # param groups: [{"params": ..., "lr": ...}, ...]
                    item = item.items.get("params", UNKNOWN)
                if isinstance(item, ParamsValue):
                    params.extend(item.params)
                elif isinstance(item, SeqValue):
                    params.extend(t for t in item.items if isinstance(t, TensorValue))
                elif isinstance(item, TensorValue):
                    params.append(item)
            names = [p.label for p in params]
            label = "`" + "`, `".join(names) + "`" if names else label
        elif isinstance(params_arg, TensorValue):
            params, label = [params_arg], f"`{params_arg.label}`"
        fused = any(k.arg == "fused" and const_bool(k.value) is True for k in node.keywords)
        return OptimizerValue(kind=kind, label=f"<{kind}>", params=params, fused=fused, params_label=label)

    def optimizer_step(self, opt: OptimizerValue, node: ast.Call, frame: Frame) -> None:
        """`optimizer.step()`: every parameter that has a `.grad` is updated in place (silently when fused)."""
        site = self.site(node, "optimizer", "step", extra=(("fused", str(opt.fused)),))  # no frame: no write facts
        site.optimizer = opt
        for param in opt.params:
            if param.group.has_grad is False:
                continue  # optimizers skip parameters whose .grad is None
            self.record_write(frame, param, site, opt.params_label, silent=opt.fused, leaf_check=False,
                              certain=param.group.has_grad is True)

    @staticmethod
    def zero_grad(params: list, node: ast.Call) -> None:
        """`zero_grad()` sets `.grad` to None (unless `set_to_none=False`): the next step skips them."""
        for kw in node.keywords:
            if kw.arg == "set_to_none" and const_bool(kw.value) is not True:
                return
        if node.args and const_bool(node.args[0]) is not True:
            return
        for param in params:
            if isinstance(param, TensorValue):
                param.group.has_grad = False

    # ------------------------------------------------------------------------------------ inlining
    def call_function(self, fn: FunctionValue, args: list, kwargs: dict, node: ast.AST, frame: Frame,
                      self_value: Value | None = None, constructing: bool = False) -> Value:
        """Run a file-defined function with the caller's abstract arguments (bounded depth, no recursion);
        `constructing`: it is a class's `__init__`, which (with what it calls) may nest deeper."""

        interp = self.interp
        fn_node = fn.node
        depth_limit = max(frame.depth_limit, MAX_CONSTRUCT_DEPTH) if constructing else frame.depth_limit
        if frame.depth >= depth_limit or fn_node in interp.call_stack or interp.steps > STEP_BUDGET:
            # Not run here: when it runs on its own, it runs in the grad mode its callers call it in.
            interp.uninlined_grad_modes.setdefault(id(fn_node), set()).add(frame.grad_mode)
            extra = [self_value] if isinstance(self_value, TensorValue) else []
            return self.generic_op(fn.qualname, extra + list(args), kwargs, node, frame, is_tensor=None)
        if isinstance(fn_node, ast.Lambda):
            env = {}
            params = [*fn_node.args.posonlyargs, *fn_node.args.args]
            for p, a in zip(params, args):
                env[p.arg] = a
            inner = Frame(env=env, globals=fn.env, grad_mode=frame.grad_mode, allow_mutation=frame.allow_mutation,
                          path=frame.path, function=frame.function, unknown_context=frame.unknown_context,
                          depth=frame.depth + 1, loop_tags=frame.loop_tags, depth_limit=depth_limit)
            return interp.eval(fn_node.body, inner)
        env = self.bind_arguments(fn, args, kwargs, self_value, frame, spread=self._unknown_spread(node, frame))
        inner = Frame(
            env=env, globals=fn.env,
            grad_mode=fn.grad_mode if fn.grad_mode is not None else frame.grad_mode,
            allow_mutation=frame.allow_mutation, path=frame.path, function=fn.qualname,
            unknown_context=frame.unknown_context, depth=frame.depth + 1, loop_tags=frame.loop_tags,
            depth_limit=depth_limit,
        )
        inner.owner = fn.owner_class
        inner.param_values = dict(env)
        inner.mutates_on_request = frame.mutates_on_request or interp.mutates_on_request(fn)
        inner.self_value = self_value
        interp.inlined.add(id(fn_node))
        interp.call_stack.append(fn_node)
        try:
            interp.exec_block(fn_node.body, inner)
        finally:
            interp.call_stack.pop()
        if not inner.returns:
            return SCALAR
        result = inner.returns[0]
        for other in inner.returns[1:]:
            result = join_values(result, other)
        return result

    def _unknown_spread(self, node: ast.AST, frame: Frame) -> bool:
        """Whether a call passes `*args` or `**kwargs` whose content is not known (which parameters they fill is
        not known): a list or a dict with known keys is known (`call` records which calls had only those)."""
        if not isinstance(node, ast.Call) or id(node) in self._known_spreads:
            return False
        return any(isinstance(a, ast.Starred) for a in node.args) or any(kw.arg is None for kw in node.keywords)

    def bind_arguments(self, fn: FunctionValue, args: list, kwargs: dict, self_value: Value | None,
                       frame: Frame, spread: bool = False) -> dict:
        """Map call arguments onto a function's parameters (with `spread`, a parameter the call does not name may
        have been passed through `*args`/`**kwargs`: unknown, not its default)."""
        node = fn.node
        spec = node.args
        params = [*spec.posonlyargs, *spec.args]
        values = list(args)
        if self_value is not None:
            values = [self_value, *values]
        env: dict = {}
        defaults = spec.defaults
        first_default = len(params) - len(defaults)
        for index, param in enumerate(params):
            if index < len(values):
                env[param.arg] = values[index]
            elif param.arg in kwargs:
                env[param.arg] = kwargs.pop(param.arg)
            elif index >= first_default and not spread:
                env[param.arg] = self._default(fn, index - first_default)
            else:
                env[param.arg] = UNKNOWN
        if spec.vararg:
            env[spec.vararg.arg] = SeqValue(values[len(params):])
        for position, (param, default) in enumerate(zip(spec.kwonlyargs, spec.kw_defaults)):
            if param.arg in kwargs:
                env[param.arg] = kwargs.pop(param.arg)
            else:
                env[param.arg] = self._default(fn, position, keyword=True) if default is not None and not spread \
                    else UNKNOWN
        if spec.kwarg:
            # The keywords no parameter took, when the call's are all known (`Block(dim, **kwargs)` forwarding
            # them decides the flags of the function it calls).
            env[spec.kwarg.arg] = UNKNOWN if spread else DictValue(dict(kwargs))
        return env

    @staticmethod
    def _default(fn: FunctionValue, position: int, keyword: bool = False) -> Value:
        """A parameter's default: its value where the function was defined (a literal when that was not run)."""
        values = fn.kw_defaults if keyword else fn.defaults
        if position < len(values) and values[position] is not None:
            return values[position]
        nodes = fn.node.args.kw_defaults if keyword else fn.node.args.defaults
        node = nodes[position] if position < len(nodes) else None
        return constant_value(node.value) if isinstance(node, ast.Constant) else UNKNOWN

    # =========================================================================================== operators
    def binop(self, node: ast.BinOp, left: Value, right: Value, frame: Frame) -> Value:
        name = BINOP_NAMES.get(type(node.op))
        if name is None:
            return UNKNOWN
        if name == "add" and isinstance(left, (SeqValue, ParamsValue)) and isinstance(right, (SeqValue, ParamsValue)):
            return self.concatenate([left, right], node)
        if isinstance(left, TensorValue):
            receiver, other, dunder = left, right, f"__{name}__"
        elif isinstance(right, TensorValue):
            receiver, other, dunder = right, left, f"__r{name}__"
        elif isinstance(left, ScalarValue) and isinstance(right, ScalarValue):
            return fold_binop(node.op, left, right)
        else:
            return UNKNOWN
        entry = self.table.method(dunder) if self.table else None
        is_tensor = tri_or(receiver.is_tensor, getattr(other, "is_tensor", None))
        if entry is None:
            return self.generic_op(dunder, [receiver, other], {}, node, frame, is_tensor=is_tensor)
        nodes = [node.left, node.right] if receiver is left else [node.right, node.left]
        return self.apply_op(entry, name, [receiver, other], {}, node, frame, result_is_tensor=is_tensor,
                             arg_nodes=nodes)

    def unaryop(self, node: ast.UnaryOp, operand: Value, frame: Frame) -> Value:
        if isinstance(node.op, ast.Not):
            return truth_value(None if operand.truth is None else not operand.truth) \
                if isinstance(operand, ScalarValue) else SCALAR
        if isinstance(operand, ScalarValue):
            if isinstance(node.op, ast.USub) and operand.is_number and operand.known:
                return ScalarValue(kind="number", constant=-operand.constant)  # type: ignore[operator]
            return ScalarValue(kind=operand.kind if operand.is_number else "")
        if not isinstance(operand, TensorValue):
            return UNKNOWN
        if isinstance(node.op, ast.UAdd):
            return operand
        dunder = UNARY_NAMES[type(node.op)]
        entry = self.table.method(dunder) if self.table else None
        if entry is None:
            return self.generic_op(dunder, [operand], {}, node, frame, is_tensor=operand.is_tensor)
        return self.apply_op(entry, dunder.strip("_"), [operand], {}, node, frame, result_is_tensor=operand.is_tensor,
                             arg_nodes=[node.operand])

    # =========================================================================================== indexing
    def index_kind(self, index: ast.AST, frame: Frame, base: ast.AST | None = None) -> str:
        """`basic` (a view), `advanced` (a copy) or `unknown`, evaluating the index expressions."""
        return self.index_info(index, frame, base)[0]

    def index_info(self, index: ast.AST, frame: Frame, base: ast.AST | None = None,
                   tensors: list | None = None) -> tuple[str, tuple[str, ...]]:
        """The index's kind (`index_kind`) and the kind of each of its parts: `full` (`:`), `slice`, `ellipsis`,
        `int` (a Python number), `mask_of_target` (a boolean mask computed elementwise from the indexed tensor
        `base` itself: `y > 0`, `torch.isnan(y)`), `int_tensor`, `bool_tensor`, `other`. Each part known to be a
        tensor is appended to `tensors` as (expression, value)."""
        parts = index.elts if isinstance(index, ast.Tuple) else [index]
        kinds = set()
        described = []
        for part in parts:
            if isinstance(part, ast.Slice):
                for bound in (part.lower, part.upper, part.step):
                    if bound is not None:
                        self.interp.eval(bound, frame)
                kinds.add("basic")
                described.append("full" if part.lower is part.upper is part.step is None else "slice")
                continue
            if isinstance(part, ast.Constant):
                kinds.add("basic" if not isinstance(part.value, (list, tuple)) else "advanced")
                described.append("ellipsis" if part.value is Ellipsis else
                                 "int" if isinstance(part.value, int) and not isinstance(part.value, bool) else "other")
                continue
            value = self.interp.eval(part, frame)
            if isinstance(value, ScalarValue):
                kinds.add("basic")
                described.append("int" if not value.is_str else "other")
            elif isinstance(value, SeqValue) or (isinstance(value, TensorValue) and value.is_tensor is True):
                kinds.add("advanced")
                if tensors is not None and isinstance(value, TensorValue):
                    tensors.append((part, value))
                if base is not None and self._mask_of(part, base, frame):
                    described.append("mask_of_target")
                elif isinstance(value, TensorValue) and value.dtype in ("int64", "bool"):
                    described.append("int_tensor" if value.dtype == "int64" else "bool_tensor")
                else:
                    described.append("other")
            else:
                kinds.add("unknown")
                described.append("other")
        kind = "advanced" if "advanced" in kinds else "unknown" if "unknown" in kinds else "basic"
        return kind, tuple(described)

    _MASK_FUNCTIONS = {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "signbit", "isreal"}
    _COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq)

    def _mask_of(self, node: ast.AST, base: ast.AST, frame: Frame) -> bool:
        """Whether an index is a boolean mask computed elementwise from `base` alone (so with `base`'s shape):
        `base` compared with a number, `torch.isnan(base)`, `base.isinf()`, and `~`, `&`, `|`, `^` of such."""
        target = self.text(base)
        if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], self._COMPARISONS):
            sides = [node.left, node.comparators[0]]
            return sorted(self.text(s) == target for s in sides) == [False, True] and all(
                self.text(s) == target or self._is_number(s, frame) for s in sides)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in self._MASK_FUNCTIONS and not node.keywords:
            if not node.args:
                return self.text(node.func.value) == target
            return len(node.args) == 1 and self.text(node.func.value) == "torch" and self.text(node.args[0]) == target
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
            return self._mask_of(node.operand, base, frame)
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
            return self._mask_of(node.left, base, frame) and self._mask_of(node.right, base, frame)
        return False

    def _is_number(self, node: ast.AST, frame: Frame) -> bool:
        """A number literal (or a negated one) or a name of a Python number."""
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
        value = self._lookup(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return isinstance(value, ScalarValue) and not value.is_str and not value.is_none

    def getitem(self, node: ast.Subscript, frame: Frame) -> Value:
        base = self.interp.eval(node.value, frame)
        if isinstance(base, TensorValue) and base.is_tensor is None and self._str_index(node.slice, frame):
            return UNKNOWN  # `params["lr"]`: a mapping, not a tensor
        if isinstance(base, TensorValue):
            index_tensors: list = []
            kind, _ = self.index_info(node.slice, frame, tensors=index_tensors)
            label = self.text(node)
            if kind == "basic":
                return TensorValue(base.group, base.rg, base.leaf_rg, base.graph, label, base.maybe_groups, base.is_tensor,
                                   view=True, dtype=base.dtype)
            rg = base.rg if frame.grad_mode is not False else False
            result = self.fresh_tensor(node, rg, label, graph=base.graph if rg is not False else frozenset(),
                                       is_tensor=base.is_tensor)
            result.dtype = base.dtype
            if kind == "unknown":
                result.maybe_groups = tuple(g for g, _ in base.all_groups())
                result.leaf_rg = None if base.leaf_rg else False
            elif rg is not False:
                result.graph = result.graph | frozenset(self.index_saves(node, base, index_tensors, frame))
            return result
        if isinstance(base, DictValue):
            if isinstance(node.slice, ast.Constant) and node.slice.value in base.items:
                return base.items[node.slice.value]
            if not isinstance(node.slice, ast.Constant):
                self.interp.eval(node.slice, frame)
            return self.interp.element_value(base, list(base.items.values()))
        if isinstance(base, SeqValue) and isinstance(node.slice, ast.Slice):
            part = self.slice_of(base, node.slice, frame)
            if part is not None:
                return part
        constant = known_int(self.interp.eval(node.slice, frame))
        if isinstance(base, SeqValue) and base.item_at(constant) is not None:
            return base.item_at(constant)
        if isinstance(base, ModuleValue) and constant is not None \
                and -len(base.children) <= constant < len(base.children):
            return base.children[constant]
        if isinstance(base, SeqValue) and base.items:
            return self.interp.element_value(base, base.items)
        if isinstance(base, ScalarValue):
            # Part of a Python value (`x.shape[2]`, a character of a string) is no tensor.
            return ScalarValue(kind="str") if base.is_str else SCALAR
        return UNKNOWN

    def slice_of(self, base: SeqValue, index: ast.Slice, frame: Frame) -> SeqValue | None:
        """`items[start:stop:step]` of a list whose items and bounds are known (`rep[1:]`)."""
        bounds = []
        for part in (index.lower, index.upper, index.step):
            value = self.interp.eval(part, frame) if part is not None else None
            number = known_int(value)
            if number is None and not (value is None or (isinstance(value, ScalarValue) and value.is_none)):
                return None
            bounds.append(number)
        start, stop, step = bounds
        if base.imprecise or step == 0:
            return None
        if base.open_ended and (stop is not None or step not in (None, 1) or (start or 0) < 0):
            return None  # the end of the list is not known
        return SeqValue(base.items[start:stop:step], open_ended=base.open_ended)

    def index_saves(self, node: ast.Subscript, base: TensorValue, index_tensors: list, frame: Frame) -> list[Save]:
        """`base[idx]` with tensor indices: autograd keeps the index tensors themselves (integer or boolean) for
        the backward, as the table measures for `Tensor.__getitem__` with a tensor key."""
        entry = self.table.method("__getitem__") if self.table else None
        if entry is None:
            return []
        saved = {s.item: s for s in entry.saves([self.fact(base), ArgFact(True, False)], {})}
        if "input:1" not in saved:
            return []
        certain = saved["input:1"].certain and base.rg is True and frame.grad_mode is True
        saves: list[Save] = []
        for part, value in index_tensors:
            saves += self.record_save(frame, value, "index", f"index `{value.label}`", node, certain,
                                      operand=part)
        return saves

    def _str_index(self, index: ast.AST, frame: Frame) -> bool:
        if isinstance(index, ast.Constant):
            return isinstance(index.value, str)
        if isinstance(index, (ast.Name, ast.JoinedStr)):
            value = self.interp.eval(index, frame)
            return isinstance(value, ScalarValue) and value.is_str
        return False

    def setitem(self, target: ast.Subscript, value: Value, frame: Frame, stmt: ast.AST) -> None:
        """`base[index] = value`: an in-place write to the tensor `base`."""
        base = self.interp.eval(target.value, frame)
        if isinstance(base, DictValue):
            if isinstance(target.slice, ast.Constant) and isinstance(target.slice.value, (str, int)):
                base.items[target.slice.value] = value
            else:
                self.interp.eval(target.slice, frame)
            return
        if isinstance(base, SeqValue):
            # `layers[0] = nn.ReLU(inplace=False)`: the list now holds the new item.
            index = known_int(self.interp.eval(target.slice, frame))
            if base.item_at(index) is not None:
                base.items[index] = value  # type: ignore[index]
            return
        if not isinstance(base, TensorValue) or base.is_tensor is None:
            # Only tensors known to be tensors: an unannotated argument may be a dict or a list.
            self.interp.eval(target.slice, frame)
            return
        kind, parts = self.index_info(target.slice, frame, target.value)
        value_node = stmt.value if isinstance(stmt, (ast.Assign, ast.AnnAssign)) else None
        site = self.site(stmt, "setitem", "__setitem__", index_kind=kind, index_text=self.text(target.slice),
                         index_parts=parts, written=target.value, frame=frame, operands=[(value, value_node)])
        self.record_write(frame, base, site, self._label(base, target.value))
        if isinstance(value, TensorValue) and frame.grad_mode is not False and value.rg is not False:
            base.rg = tri_or(base.rg, value.rg)
            base.graph = base.graph | value.graph | self.leaf_uses([value])

    def augassign(self, stmt: ast.AugAssign, frame: Frame) -> None:
        """`x op= y`: in place for tensors (`add_`...), a rebinding for Python numbers."""
        target = stmt.target
        name = BINOP_NAMES.get(type(stmt.op))
        if isinstance(target, ast.Subscript):
            base = self.interp.eval(target.value, frame)
            rhs = self.interp.eval(stmt.value, frame)
            if isinstance(base, TensorValue) and base.is_tensor is not None:
                kind = self.index_kind(target.slice, frame)
                site = self.site(stmt, "augassign", AUGASSIGN_INPLACE.get(name or "", "setitem"),
                                 index_kind=kind, index_text=self.text(target.slice), written=target.value,
                                 frame=frame, operands=[(rhs, stmt.value)])
                self.record_write(frame, base, site, self._label(base, target.value))
                if isinstance(rhs, TensorValue) and frame.grad_mode is not False:
                    base.rg = tri_or(base.rg, rhs.rg)
                    base.graph = base.graph | rhs.graph | self.leaf_uses([rhs])
            else:
                self.interp.eval(target.slice, frame)
            return
        current = self.interp.eval(target, frame)
        rhs = self.interp.eval(stmt.value, frame)
        if isinstance(current, TensorValue) and name is not None and name != "matmul":
            op = AUGASSIGN_INPLACE[name]
            site = self.site(stmt, "augassign", op, written=target, frame=frame, operands=[(rhs, stmt.value)])
            self.record_write(frame, current, site, self._label(current, target))
            entry = self.table.method(f"__{name}__") if self.table else None
            self.apply_op(entry, name, [current, rhs], {}, stmt, frame, inplace_target=current,
                          arg_nodes=[stmt.target, stmt.value])
            return
        fake = ast.BinOp(left=target, op=stmt.op, right=stmt.value)
        ast.copy_location(fake, stmt)
        fake.end_lineno, fake.end_col_offset = stmt.end_lineno, stmt.end_col_offset
        result = self.binop(fake, current, rhs, frame)
        self.interp.assign(target, result, frame, stmt)


class SuperValue(Value):
    """`super()` inside a method: knows the instance and the class the method belongs to."""

    def __init__(self, frame: Frame) -> None:
        self.instance = frame.self_value
        self.owner = frame.owner
