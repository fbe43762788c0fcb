"""Custom `torch.autograd.Function`s defined in the file: `MyFn.apply(x, ...)` runs the class's `forward` (with grad
mode off, as PyTorch runs it), with a context whose `save_for_backward` saves tensors for the backward; the
outputs are new tensors whose backward needs the inputs' graphs and those saves.

A `forward` that writes its input in place (`x.mul_(2)` without `ctx.mark_dirty(x)`) is then a write to the
caller's tensor, seen by the saves the caller's ops made of it."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import SCALAR, UNKNOWN, ClassValue, FrameworkValue, FunctionValue, SeqValue, Value

from fixinplace.analysis.frame import Frame


class AutogradFunctionsMixin:
    """`Function.apply(...)` of a file-defined `torch.autograd.Function`, and its `ctx`."""

    def autograd_apply(self, cls: ClassValue, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """What `cls.apply(*args)` returns: the outputs of `forward`, as new tensors in the caller's graph."""
        forward = self.interp.lookup_class_attr(cls, "forward")
        if not isinstance(forward, FunctionValue):
            return self.generic_op(cls.name, args, kwargs, node, frame, is_tensor=None)
        params = [*forward.node.args.posonlyargs, *forward.node.args.args]
        ctx = FrameworkValue("autograd_ctx", f"<{cls.name} ctx>")
        takes_ctx = bool(params) and params[0].arg == "ctx"  # the old style; with setup_context it takes none
        made = self.call_function(forward, [ctx, *args] if takes_ctx else list(args), kwargs, node, frame)
        inputs = self.tensors(list(args) + list(kwargs.values()))
        rg = self.output_rg(frame, inputs)
        graph = self.graph_of(inputs, rg)
        if rg is not False:
            certain = rg is True and frame.grad_mode is True
            for saved in ctx.saved:
                graph = graph | frozenset(self.record_save(frame, saved, cls.name, "input", node, certain))

        def output(value: Value, index: int) -> Value:
            if not self.interp.tensors_in(value):
                return value
            label = self.text(node) if index < 0 else f"{self.text(node)}[{index}]"
            return self.fresh_tensor(node, rg, label, graph=graph)

        if isinstance(made, SeqValue):
            return SeqValue([output(item, i) for i, item in enumerate(made.items)])
        return output(made, -1) if made is not UNKNOWN else UNKNOWN

    @staticmethod
    def autograd_ctx_method(ctx: FrameworkValue, name: str, args: list) -> Value:
        """`ctx.save_for_backward(*tensors)` keeps them for `apply` to save; `mark_dirty` and the others change
        nothing the analysis follows."""
        if name == "save_for_backward":
            ctx.saved.extend(args)
        return SCALAR
