"""Methods called on a tensor: `t.add_(...)`, `t.requires_grad_()`, conversions, NumPy-array methods, and
the in-place methods that write it."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import SCALAR, UNKNOWN, QualName, ScalarValue, TensorValue, Tri, Value, tri_or

from fixinplace.analysis import dtypes
from fixinplace.analysis.calls.common import MAYBE_ALIAS_METHODS, const_bool
from fixinplace.analysis.frame import Frame
from fixinplace.facts import WriteForm

SCALAR_METHODS = {
    "item", "tolist", "size", "dim", "numel", "nelement", "element_size", "stride", "data_ptr",
    "is_contiguous", "storage_offset", "equal", "is_floating_point", "is_complex", "get_device", "__len__",
    "ndimension", "untyped_storage", "storage", "_typed_storage", "_storage", "register_hook", "retain_grad", "allclose", "any_", "all_",
}
# Methods of a NumPy array (here: one that shares a tensor's memory) that copy it, and that write it in place.
NDARRAY_COPIES = {"copy", "astype", "tolist", "tobytes", "item"}
NDARRAY_WRITES = {"fill", "sort", "partition", "put", "itemset", "resize", "setfield"}


class TensorMethodsMixin:
    """Methods of a tensor."""

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
                site = self.site(node, WriteForm.METHOD, name, written=node.func.value, frame=frame)
                self.record_write(frame, t, site, self._label(t, node.func.value), leaf_check=False)
                return SCALAR
            if "out" in kwargs:
                self.numpy_call(f"numpy.ndarray.{name}", args, kwargs, node, frame)
                return UNKNOWN
        if name == "requires_grad_":
            flag = const_bool(node.args[0]) if node.args else True
            flag = True if flag is None and not node.args else flag
            self.set_requires_grad(t, flag, node, "requires_grad_()", frame)
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
            same = self._same_tensor(t, entry, name, args, kwargs)
            if same is True:
                return t
            if same is False:  # a conversion to another dtype: a new tensor, whose backward goes through `t`
                copy = self.fresh_tensor(node, t.rg if frame.grad_mode is not False else False, self.text(node),
                                         graph=t.graph, is_tensor=t.is_tensor)
                copy.leaf_rg = False
                copy.dtype = self._wanted_dtype(t, name, args, kwargs)
                return copy
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

    def _same_tensor(self, t: TensorValue, entry, name: str, args: list, kwargs: dict) -> Tri:
        """Whether a conversion returns `t` itself (True) or a new tensor (False), for a call the table measured
        returning its input when nothing changes: True when `t`'s dtype is known and is the one asked for, False
        when both are known and differ or the call always copies (`copy=True`); None when either is not known, or
        a device may be named (`x.to(device)` copies when the device differs, which the analysis cannot tell)."""
        if entry is None or not hasattr(entry, "identity_for"):
            return None
        identity = entry.identity_for([self.fact(a) for a in [t, *args]], {k: self.fact(v) for k, v in kwargs.items()})
        if identity is False:
            return False  # `x.to(dtype, copy=True)`: a new tensor whatever the dtypes
        if "device" in kwargs or any(isinstance(value, ScalarValue) for value in args):
            return None  # a device (or a string naming one) may be given: a copy when it differs
        wanted = self._wanted_dtype(t, name, args, kwargs)
        if t.dtype is None or wanted is None or not identity:
            return None
        return wanted == t.dtype

    def _wanted_dtype(self, t: TensorValue, name: str, args: list, kwargs: dict) -> str | None:
        """The dtype a conversion asks for (`x.double()`: float64; `x.type_as(y)`: y's), when known."""
        if name == "type_as":
            return args[0].dtype if args and isinstance(args[0], TensorValue) else None
        return dtypes.CONVERSIONS.get(name) or self._converted_dtype(t, name, args, kwargs)

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

    def set_requires_grad(self, t: TensorValue, flag: Tri, node: ast.AST, how: str, frame: Frame) -> None:
        """`t.requires_grad_(flag)` / `t.requires_grad = flag`.

        Turning it off succeeds only on a leaf (torch raises for a non-leaf), so afterwards `t` is a leaf that does
        not require grad: writing it in grad mode is allowed. Turning it on makes a graph-less tensor a leaf that
        requires grad. In an arm of a branch the analysis cannot decide, the tensor (one object on every path)
        keeps both possibilities: what it was, or what the arm makes it.
        """
        if frame.path and flag is not t.rg:
            if flag is False and t.leaf_rg:
                t.group.rg_switched_at = getattr(node, "lineno", 0)
            t.rg = None
            t.leaf_rg = None if t.leaf_rg or (flag and not t.graph) else t.leaf_rg
            return
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
        site = self.site(node, WriteForm.METHOD, name,
                         written=node.func.value if isinstance(node.func, ast.Attribute) else None, frame=frame,
                         operands=self.operand_pairs(node, list(args) + list(kwargs.values())))
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
