"""Write sites: one record per written expression, with the facts the fix stage plans from (the written root and
its kind, the operands, the enclosing statement, grad mode, whether the root is read afterwards, in-place chains)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import InstanceValue, ScalarValue, Site, SiteSetting, TensorValue, Value

from fixinplace.analysis.callers import argument_is_private, returns_other_than
from fixinplace.analysis.calls.common import MAYBE_ALIAS_METHODS, VIEW_ATTRS
from fixinplace.analysis.frame import Frame
from fixinplace.analysis.liveness import read_after
from fixinplace.facts import GradMode, Operand, Span, Statement, WriteForm


class SitesMixin:
    """Write sites and their facts."""

    def site(self, node: ast.AST, form: WriteForm | str, op: str, *, written: ast.AST | None = None,
             frame: "Frame | None" = None, operands: list | None = None, index_kind: str = "", index_text: str = "",
             index_parts: tuple[str, ...] = (), module_ctor: Span | None = None, inplace_literal: Span | None = None,
             extra: tuple[tuple[str, str], ...] = ()) -> Site:
        """The write site for a node (one per node and form, shared across abstract executions).

        `written` is the expression of the written tensor and `operands` the other operands of the op, as
        (value, expression node or None) pairs: with them the site records the facts the fix stage plans from
        (`fixinplace.facts.WriteFacts`); the other keywords are further fields of that record, as `SiteSetting`
        holds them.
        """
        form = WriteForm(form)
        key = (id(node), form, module_ctor)  # each module of a Sequential writes at its own site
        site = self._sites.get(key)
        if site is None:
            setting = self.write_setting(node, written, frame, operands) if frame is not None else SiteSetting()
            setting.index_kind, setting.index_text, setting.index_parts = index_kind, index_text, index_parts
            setting.module_ctor, setting.inplace_literal, setting.extra = module_ctor, inplace_literal, extra
            site = Site(node=node, form=form, op=op, text=self.text(node), setting=setting)
            self._sites[key] = site
        return site

    def write_setting(self, node: ast.AST, written: ast.AST | None, frame: Frame,
                      operands: list | None) -> SiteSetting:
        """Where the write sits and what it writes: root name and its kind, operands, enclosing statement,
        grad mode, and whether the root name is read afterwards."""
        setting = SiteSetting()
        stmt = self.interp.current_statement
        if written is not None:
            root, kind = self.root_of(written, frame)
            setting.target, setting.root, setting.root_kind = self.text(written), root, kind
            if kind in ("local", "argument") and root.isidentifier() and stmt is not None:
                scope = self.interp.current_scope
                setting.read_after = read_after(scope, stmt, root)
                if kind == "argument":
                    setting.argument_private = argument_is_private(self.interp.tree, scope, root)
                    setting.returns_other = returns_other_than(scope, root)
                setting.chain, setting.chain_exact, setting.chain_promotes = self._chain(stmt, root, frame)
        if operands is not None:
            setting.operands = tuple(self.operand_facts(value, operand, setting.root, frame)
                                     for value, operand in operands)
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
            setting.statement = Statement(shape, stmt.lineno, getattr(stmt, "end_lineno", None) or stmt.lineno,
                                          assigned)
        setting.grad_mode = GradMode.of(frame.grad_mode)
        if frame.grad_mode is False:
            no_grad = frame.no_grad_stmt
            if no_grad is not None:
                setting.grad_on_line = no_grad.lineno  # the last statement run with grad on
        return setting

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
            base = SitesMixin._lookup(node.value, frame)
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
            return node.id, self.name_kind(node.id, frame)
        if isinstance(node, ast.Attribute):
            return self.text(node), "attribute"
        return self.text(node), "other"

    @staticmethod
    def name_kind(name: str, frame: Frame) -> str:
        """Whether a name is an argument (still the caller's object, not rebound in the function), a local or a
        global of the frame."""
        passed = frame.param_values
        if name in passed and frame.env.get(name) is passed[name]:
            return "argument"
        if frame.function == "<module>" or name in frame.env:
            return "local"
        return "global"

    @classmethod
    def _not_a_tensor(cls, node: ast.AST, frame: Frame) -> bool:
        """Whether a name or attribute chain holds a value the analysis knows is not a tensor (a container)."""
        value = cls._lookup(node, frame) if isinstance(node, (ast.Name, ast.Attribute)) else None
        return value is not None and not isinstance(value, TensorValue)
