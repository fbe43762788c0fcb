"""Aliases of a tensor's memory that autograd does not see: `.data`, `.numpy()` (a NumPy array sharing the
memory) and what NumPy calls do to one, `.grad`, and the view attributes (`.T`, `.real`, ...)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import SCALAR, Group, MethodRef, SeqValue, TensorValue, Value

from fixinplace.analysis.calls.common import VIEW_ATTRS
from fixinplace.analysis.frame import Frame

SCALAR_ATTRS = {"shape", "dtype", "device", "ndim", "requires_grad", "is_leaf", "names", "layout", "is_cuda",
                "grad_fn", "output_nr", "_version", "nbytes", "itemsize"}


class AliasesMixin:
    """`.data`, `.numpy()`, `.grad` and view attributes."""

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
