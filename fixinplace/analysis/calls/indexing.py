"""Indexing: what kind an index is (basic, boolean mask, integer tensor), reading `x[i]` (views, saves of the
index) and writing `x[i] = v` on tensors, sequences and dicts."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    CONTAINER_ATTR,
    SCALAR,
    UNKNOWN,
    DictValue,
    InstanceValue,
    ModuleValue,
    Save,
    ScalarValue,
    SeqValue,
    TensorValue,
    Value,
    known_int,
    known_key,
    known_str,
    tri_or,
)

from fixinplace.analysis.calls.common import ArgFact
from fixinplace.analysis.calls.modules import NAMED_CONTAINERS
from fixinplace.analysis.frame import Frame
from fixinplace.facts import WriteForm


class IndexingMixin:
    """Reading and writing `x[i]`."""

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
        return self.item_of(self.interp.eval(node.value, frame), node, frame)

    def item_of(self, base: Value, node: ast.Subscript, frame: Frame) -> Value:
        """`base[...]` for an already evaluated `base` (the `node.value` of the subscript)."""
        if isinstance(base, TensorValue) and base.is_tensor is None and self._str_index(node.slice, frame):
            return UNKNOWN  # `params["lr"]`: a mapping, not a tensor
        if isinstance(base, TensorValue):
            index_tensors: list = []
            kind, _ = self.index_info(node.slice, frame, tensors=index_tensors)
            label = self.text(node)
            if kind == "basic":
                return base.view_named(label, frame.grad_mode)
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
                key = known_key(self.interp.eval(node.slice, frame))
                if key is not None and key in base.items:
                    return base.items[key]  # `d["gcl_%d" % i]`, `d[name]`: a key the analysis computed
            return self.interp.element_value(base, list(base.items.values()))
        if isinstance(base, SeqValue) and isinstance(node.slice, ast.Slice):
            part = self.slice_of(base, node.slice, frame)
            if part is not None:
                return part
        index = self.interp.eval(node.slice, frame)
        if isinstance(base, ModuleValue) and base.kind in NAMED_CONTAINERS:
            number = known_int(index) if base.kind == "ParameterList" else None
            key = str(number % len(base.keys)) if number is not None and base.keys else known_str(index)
            found = base.item(key) if key is not None else None
            return found if found is not None else UNKNOWN
        constant = known_int(index)
        if isinstance(base, InstanceValue):  # `self[0]` in a subclass of nn.Sequential
            base = base.attrs.get(CONTAINER_ATTR, base)
        if isinstance(base, SeqValue) and base.item_at(constant) is not None:
            return base.item_at(constant)
        if isinstance(base, ModuleValue) and constant is not None \
                and -len(base.children) <= constant < len(base.children):
            return base.children[constant]
        if isinstance(base, ModuleValue) and base.kind in ("ModuleList", "Sequential") and constant is None \
                and base.children and all(isinstance(c, ModuleValue) and c.entry is not None for c in base.children) \
                and len({(c.kind, c.inplace, c.maybe_absent) for c in base.children}) == 1:
            # `self.norms[i](x)` with `i` unknown, over layers of one kind built alike: whichever it is, it keeps
            # what that kind keeps (its own parameters: the first stands for them).
            return base.children[0]
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
                key = known_key(self.interp.eval(target.slice, frame))
                if key is not None and not frame.path and not frame.loop_tags:
                    base.items[key] = value
            return
        if isinstance(base, ModuleValue) and base.kind in ("ModuleDict", "ParameterDict"):
            key = known_str(self.interp.eval(target.slice, frame))
            if key is not None and not frame.path and not frame.loop_tags:
                self.set_named_item(base, key, value, stmt)  # `self.heads["cls"] = nn.Linear(...)`
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
        site = self.site(stmt, WriteForm.SETITEM, "__setitem__", index_kind=kind, index_text=self.text(target.slice),
                         index_parts=parts, written=target.value, frame=frame, operands=[(value, value_node)])
        self.record_write(frame, base, site, self._label(base, target.value))
        if isinstance(value, TensorValue) and frame.grad_mode is not False and value.rg is not False:
            base.rg = tri_or(base.rg, value.rg)
            base.graph = base.graph | value.graph | self.leaf_uses([value])
