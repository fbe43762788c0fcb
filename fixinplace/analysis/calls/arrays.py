"""Tensors that share a NumPy array's memory: `torch.from_numpy(a)`, and `torch.as_tensor(a)` / `torch.asarray(a)`
of an array (no dtype or device asked for). Writing such a tensor in place writes the array. Autograd sees nothing
and nothing raises, but every later reader of the array gets the new values: a dataset normalised again on each
epoch, a replay buffer divided by 255 twice, an input a caller uses again.

Reported (FIP105) at the write when the array is read afterwards: an error when the array's variable is read again
in the function that made the tensor; a warning when the array outlives the function (an attribute, a global, the
caller's argument) or when the call shares memory only if its argument is an array of the tensor's dtype."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import ArraySource, TensorValue, UnknownValue, Value

from fixinplace.analysis.events import ArrayWritten
from fixinplace.analysis.frame import Frame
from fixinplace.facts import Span
from fixinplace.analysis.liveness import read_after

SHARING_CALLS = {"torch.from_numpy", "torch.as_tensor", "torch.asarray"}

# NumPy's array-creation routines (and loading, random sampling): what they return is an array.
ARRAY_MAKERS = {"array", "asarray", "ascontiguousarray", "copy", "zeros", "ones", "empty", "full", "zeros_like",
                "ones_like", "empty_like", "full_like", "arange", "linspace", "logspace", "eye", "identity", "load",
                "loadtxt", "genfromtxt", "fromfile", "frombuffer", "stack", "concatenate", "vstack", "hstack",
                "dstack", "tile", "repeat", "meshgrid", "clip", "where", "transpose", "reshape"}


# Methods of a NumPy array that return an array (a new one, or a view of it).
ARRAY_METHODS = {"astype", "copy", "reshape", "transpose", "squeeze", "ravel", "flatten", "clip", "round",
                 "swapaxes", "view", "repeat", "cumsum", "cumprod", "__array__"}


class ArraysMixin:
    """`torch.from_numpy` and friends, and writes to the tensors they make."""

    @staticmethod
    def numpy_result(name: str) -> Value | None:
        """What a NumPy call returns: an array for the creation routines and `numpy.random`, else unknown."""
        last = name.rsplit(".", 1)[-1]
        if last in ARRAY_MAKERS or name.startswith("numpy.random."):
            return UnknownValue(array=True)
        return None

    def array_tensor(self, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value | None:
        """The tensor `torch.from_numpy(a)` (or `as_tensor`/`asarray` of no tensor, with no dtype or device
        asked for) makes, sharing `a`'s memory; None when the call is not one of those."""
        if name not in SHARING_CALLS or len(args) != 1 or isinstance(args[0], TensorValue) or not node.args:
            return None
        if name != "torch.from_numpy" and ({"dtype", "device", "copy"} & set(kwargs) or len(node.args) > 1
                                           or not isinstance(args[0], UnknownValue)):
            return None  # a list, a number: copied
        self.interp.memo.impure()  # the tensor is tied to an array the caller may hold: no summary stands for it
        made = self.fresh_tensor(node, False, self.text(node))
        made.leaf_rg = False
        source = node.args[0]
        doubt = ""
        if name != "torch.from_numpy" and not args[0].array:
            doubt = f"only if `{self.text(source)}` is a NumPy array: `{name.rsplit('.', 1)[-1]}` copies a list"
        in_file = not self.report.file_of(node)
        made.group.array_source = self._array_source(
            source, frame, call=self.text(node), line=getattr(node, "lineno", 0),
            span=self.report.span(node) if in_file else None, doubt=doubt)
        return made

    def _array_source(self, expr: ast.AST, frame: Frame, call: str, line: int,
                      span: "tuple[int, int, int, int] | None", doubt: str) -> ArraySource:
        """The array `expr` names, in the scope running now, for a tensor `call` made sharing its memory."""
        root, kind, indexed = self._array_root(expr, frame)
        if not doubt and indexed is False:  # `a[idx]` with an index array or list is a copy in NumPy
            doubt = f"only if `{self.text(expr)}` is a view of `{root}`: an index array or list makes a copy"
        return ArraySource(call=call, label=self.text(expr), root=root, root_kind=kind, line=line, span=span,
                           doubt=doubt, scope=self.interp.current_scope)

    def _in_caller(self, source: ArraySource, param: str, fn, node: ast.AST, frame: Frame,
                   self_value: Value | None) -> ArraySource | None:
        """`source`, an argument `param` of `fn`, as the caller's expression for that argument (None when the call
        passes none the analysis can name)."""
        expr = self._argument_expression(fn.node, node, param, self_value is not None) \
            if isinstance(node, ast.Call) and isinstance(fn.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None
        if expr is None:
            return None
        return self._array_source(expr, frame, source.call, source.line, source.span, source.doubt)

    def rebase_array_sources(self, result: Value, fn, node: ast.AST, frame: Frame, self_value: Value | None) -> None:
        """A call returned a tensor sharing the memory of an array its function got as an argument (`cast(x)`
        returning `torch.from_numpy(x)`): from here on the array is the caller's expression for that argument,
        in the caller's scope (a write to the tensor here writes it, and a read of it afterwards sees that)."""
        for tensor in self.interp.tensors_in(result):
            source = tensor.group.array_source
            if source is None or source.scope is not fn.node or source.root_kind != "argument":
                continue
            rebased = self._in_caller(source, source.root, fn, node, frame, self_value)
            if rebased is not None:
                tensor.group.array_source = rebased

    def array_writes_returned(self, writes: list, fn, node: ast.AST, frame: Frame, self_value: Value | None) -> None:
        """A call returned after writing arrays its function got as arguments: each is the caller's expression for
        that argument, judged where the call stands (read again afterwards, the caller's own argument, or a
        temporary nobody reads)."""
        for param, site, label, source, certain in writes:
            rebased = self._in_caller(source, param, fn, node, frame, self_value)
            if rebased is not None:
                self.array_written(frame, site, label, rebased, certain)

    @staticmethod
    def _argument_expression(fn_node: ast.AST, call: ast.Call, param: str, bound: bool) -> ast.AST | None:
        """The expression a call passes for a parameter (`bound`: the first parameter is the instance)."""
        keyword = next((kw.value for kw in call.keywords if kw.arg == param), None)
        if keyword is not None:
            return keyword
        params = [p.arg for p in [*fn_node.args.posonlyargs, *fn_node.args.args]][1 if bound else 0:]
        if param not in params or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        index = params.index(param)
        return call.args[index] if index < len(call.args) else None

    def _array_root(self, node: ast.AST, frame: Frame) -> tuple[str, str, bool | None]:
        """The variable an array expression goes back to, its kind, and for an indexed one whether every index is
        an int or a slice (a view of the array; None: not indexed)."""
        basic: bool | None = None
        while isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            plain = all(isinstance(p, ast.Slice) or (isinstance(p, ast.Constant) and isinstance(p.value, int))
                        for p in parts)
            basic = plain if basic is None else basic and plain
            node = node.value
        if isinstance(node, ast.Name):
            return node.id, self.name_kind(node.id, frame), basic
        if isinstance(node, ast.Attribute):
            return self.text(node), "attribute", basic
        return self.text(node), "other", basic

    def array_written(self, frame: Frame, site, label: str, source: ArraySource, certain: bool) -> None:
        """A write to a tensor sharing `source`'s memory: reported when the array is read afterwards."""
        scope = self.interp.current_scope
        stmt = self.interp.current_statement
        here = scope is source.scope and stmt is not None
        if source.root_kind in ("local", "argument") and here and read_after(scope, stmt, source.root):
            reader, sure = "read_after", certain and not source.doubt
        elif source.root_kind == "argument" and here and frame.depth > 1:
            # A caller in this analysis passed the array: it decides (`array_writes_returned`).
            frame.array_writes.append((source.root, site, label, source, certain))
            return
        elif source.root_kind == "argument" and here:
            reader, sure = "argument", False
        elif source.root_kind in ("attribute", "global"):
            reader, sure = "outlives", False
        else:
            return
        if source.span:
            site.runs.shares_array = Span(*source.span)
        self.interp.memo.impure()
        self.report.emit(ArrayWritten(site, label, source, reader, sure, stmts=tuple(self.interp.statements),
                                      path=frame.path))
