"""Inlining of file-defined functions: running a function's body with its arguments bound (positional, keyword,
defaults, `*args`/`**kwargs` spreads)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    DictValue,
    FunctionValue,
    SeqValue,
    TensorValue,
    Value,
    constant_value,
)

from fixinplace.analysis.frame import MAX_CONSTRUCT_DEPTH, STEP_BUDGET, Frame, join_values
from fixinplace.analysis.summaries import context_key, summarisable


class InliningMixin:
    """Inlining file-defined functions."""

    def call_function(self, fn: FunctionValue, args: list, kwargs: dict, node: ast.AST, frame: Frame,
                      self_value: Value | None = None, constructing: bool = False) -> Value:
        """Run a file-defined function with the caller's abstract arguments (bounded depth, no recursion);
        `constructing`: it is a class's `__init__`, which (with what it calls) may nest deeper."""

        interp = self.interp
        fn_node = fn.node
        depth_limit = max(frame.depth_limit, MAX_CONSTRUCT_DEPTH) if constructing else frame.depth_limit
        if frame.depth >= depth_limit or fn_node in interp.call_stack or interp.steps > STEP_BUDGET:
            # Not run here: when it runs on its own, it runs in the grad mode its callers call it in.
            if frame.depth < depth_limit and interp.memo.recording:
                interp.memo.refused(interp.call_stack.index(fn_node) if fn_node in interp.call_stack else None)
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
                          depth=frame.depth + 1, loop_tags=frame.loop_tags, depth_limit=depth_limit,
                          autocast=frame.autocast)
            return interp.eval(fn_node.body, inner)
        spread = self._unknown_spread(node, frame)
        key = self.summary_key(fn, spread, args, kwargs, frame) if self_value is None and not constructing else None
        if key is None:
            result = self._run_function(fn, args, kwargs, frame, self_value, depth_limit, spread, node)
            self.rebase_array_sources(result, fn, node, frame, self_value)
            return result
        summarised = self.use_summary(key, args, kwargs)
        if summarised is not None:
            return summarised
        passed_args, passed_kwargs = list(args), dict(kwargs)
        recording = interp.memo.start(interp.steps, len(interp.defined), len(interp.call_stack))
        try:
            result = self._run_function(fn, args, kwargs, frame, self_value, depth_limit, spread, node)
        finally:
            interp.memo.stop()
        interp.memo.finish(recording, key, (fn, *passed_args, *passed_kwargs.values()), passed_args,
                           passed_kwargs, result, interp.steps, interp.defined)
        self.rebase_array_sources(result, fn, node, frame, self_value)
        return result

    def summary_key(self, fn: FunctionValue, spread: bool, args: list, kwargs: dict, frame: Frame) -> tuple | None:
        """The calling context of a call, or None when calls of `fn` are not summarised or one of its arguments
        cannot be keyed."""
        if not summarisable(fn):
            return None
        context = context_key(args, kwargs)
        if context is None:
            return None
        return (id(fn), spread, frame.grad_mode, frame.allow_mutation, frame.unknown_context,
                frame.autocast.key() if frame.autocast is not None else None,
                frame.mutates_on_request, frame.depth, frame.depth_limit, bool(frame.path), bool(frame.loop_tags),
                self.interp.loading[-1] if self.interp.loading else None, context)

    def use_summary(self, key: tuple, args: list, kwargs: dict) -> Value | None:
        """What a call in a context already summarised returns (its statements charged to the file's budget, its
        functions registered), or None when there is no summary that still holds."""
        interp = self.interp
        summary = interp.memo.lookup(key, STEP_BUDGET - interp.steps)
        if summary is None:
            return None
        interp.steps += summary.steps
        interp.defined.extend(summary.defined)
        return interp.memo.result(summary, args, kwargs)

    def _run_function(self, fn: FunctionValue, args: list, kwargs: dict, frame: Frame, self_value: Value | None,
                      depth_limit: int, spread: bool, node: ast.AST | None = None) -> Value:
        """Run a function's body inlined, with its arguments bound; what it returns (joined over its returns).
        `node`: the call, where writes to arrays the function got as arguments are judged."""
        interp = self.interp
        fn_node = fn.node
        env = self.bind_arguments(fn, args, kwargs, self_value, frame, spread=spread)
        for name, value in env.items():  # a parameter is a name of the caller's tensor too (`identity = x`: two)
            if isinstance(value, TensorValue):
                value.group.names.add((fn.qualname, name))
        inner = Frame(
            env=env, globals=fn.env,
            grad_mode=fn.grad_mode if fn.grad_mode is not None else frame.grad_mode,
            allow_mutation=frame.allow_mutation, path=frame.path, function=fn.qualname,
            unknown_context=frame.unknown_context, depth=frame.depth + 1, loop_tags=frame.loop_tags,
            depth_limit=depth_limit, autocast=fn.autocast if fn.autocast is not None else frame.autocast,
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
        if inner.array_writes and node is not None:
            self.array_writes_returned(inner.array_writes, fn, node, frame, self_value)
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

    def _default(self, fn: FunctionValue, position: int, keyword: bool = False) -> Value:
        """A parameter's default: its value where the function was defined (a literal when that was not run)."""
        values = fn.kw_defaults if keyword else fn.defaults
        if position < len(values) and values[position] is not None:
            self.interp.memo.read_fixed(values[position])  # a default list is one object every call shares
            return values[position]
        nodes = fn.node.args.kw_defaults if keyword else fn.node.args.defaults
        node = nodes[position] if position < len(nodes) else None
        return constant_value(node.value) if isinstance(node, ast.Constant) else UNKNOWN
