"""Aliases of a tensor's memory that autograd does not see: `.data`, `.numpy()` (a NumPy array sharing the
memory) and what NumPy calls do to one, `.grad`, and the view attributes (`.T`, `.real`, ...)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import SCALAR, Group, MethodRef, SeqValue, Site, TensorValue, Value

from fixinplace.analysis.calls.common import VIEW_ATTRS
from fixinplace.analysis.events import HiddenDataWrite
from fixinplace.analysis.frame import Frame
from fixinplace.facts import WriteForm

SCALAR_ATTRS = {"shape", "dtype", "device", "ndim", "requires_grad", "is_leaf", "names", "layout", "is_cuda",
                "grad_fn", "output_nr", "_version", "nbytes", "itemsize"}


class AliasesMixin:
    """`.data` (read, written, assigned), `.numpy()`, `.grad` and view attributes."""

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
            return base.view_named(self.text(node))
        if attr in SCALAR_ATTRS:
            return SCALAR
        return MethodRef(base, attr)

    def data_assigned(self, base: TensorValue, target: ast.Attribute, stmt: ast.stmt, frame: Frame) -> None:
        """`p.data = new`: `p` takes `new`'s memory without a version bump, so a save of `p` made before it reads the
        new values (measured: the backward silently uses them), as after a write through `p.data`."""
        alias = self.tensor_attribute(base, "data", target)
        site = self.site(stmt, WriteForm.DATA_ASSIGN, "data =", written=target, frame=frame)
        self.record_write(frame, alias, site, self.text(target), leaf_check=False)

    def note_hidden_write(self, param: Group, site: Site, label: str) -> None:
        """A write through a parameter's `.data` in grad mode: remembered while the `forward` it is in runs, so that
        a use of the parameter later in that forward is reported (`hidden_write_used`)."""
        stack = self.interp.call_stack
        depth = next((i for i in range(len(stack), 0, -1)
                      if getattr(stack[i - 1], "name", "") == "forward"), 0)
        if depth:
            param.hidden_write = (site, label, depth, stack[depth - 1])

    def hidden_write_used(self, param: Group) -> None:
        """An op uses a parameter written through `.data` earlier in the same `forward` (FIP106): the forward
        computes with the written values, but autograd never sees the op that made them."""
        site, label, depth, forward = param.hidden_write
        stack = self.interp.call_stack
        if len(stack) < depth or stack[depth - 1] is not forward:
            param.hidden_write = None  # that forward has returned
            return
        param.hidden_write = None
        stmt = self.interp.current_statement
        used = stmt.lineno if stmt is not None and not self.report.file_of(stmt) else None
        self.interp.memo.impure()
        self.report.emit(HiddenDataWrite(site, label, param.label, used, stmts=tuple(self.interp.statements)))

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
                site = self.site(node, WriteForm.OUT, op, written=written, frame=frame)
                self.record_write(frame, value, site, self.text(written) if written is not None else value.label,
                                  leaf_check=False)
