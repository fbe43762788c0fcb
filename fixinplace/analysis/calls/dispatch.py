"""Calls: evaluating a call expression and dispatching on the callee (importable names such as torch functions,
nn classes and optimizers; methods of any receiver), and attribute access `base.attr`."""

from __future__ import annotations

import ast
from dataclasses import replace

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    AllowMutationCtx,
    AutocastCtx,
    BoundMethod,
    ClassValue,
    DictValue,
    DistributionValue,
    FrameworkValue,
    FunctionValue,
    GradModeCtx,
    InstanceValue,
    LazyImport,
    MethodRef,
    ModuleNamespace,
    ModuleValue,
    OptimizerValue,
    ParamsValue,
    PartialValue,
    QualName,
    ScalarValue,
    SeqValue,
    TensorValue,
    Tri,
    UnknownValue,
    Value,
    truth_value,
)

from fixinplace.analysis import dtypes, strings
from fixinplace.analysis.calls.arrays import ARRAY_METHODS
from fixinplace.analysis.calls.common import const_bool
from fixinplace.analysis.calls.configuration import PARSERS, ArgNamespaceValue, ArgParserValue
from fixinplace.analysis.calls.distributions import is_distribution
from fixinplace.analysis.calls.frameworks import framework_object
from fixinplace.analysis.calls.modules import SuperValue
from fixinplace.analysis.frame import Frame
from fixinplace.facts import WriteForm

GRAD_CONTEXTS = {
    "torch.no_grad": False, "torch.autograd.no_grad": False, "torch.inference_mode": False,
    "torch.autograd.grad_mode.no_grad": False, "torch.autograd.grad_mode.inference_mode": False,
    "torch.enable_grad": True, "torch.autograd.enable_grad": True,
}
SET_GRAD_ENABLED = {"torch.set_grad_enabled", "torch.autograd.set_grad_enabled", "torch.autograd.grad_mode.set_grad_enabled"}
ALLOW_MUTATION = {"torch.autograd.graph.allow_mutation_on_saved_tensors"}
# Autocast's spellings: (the device the spelling implies, None when its `device_type` argument says, and the dtype
# it casts to by default, None when the device decides it; whether `enabled` is its first positional argument).
AUTOCASTS = {
    "torch.autocast": (None, None, False), "torch.amp.autocast": (None, None, False),
    "torch.amp.autocast_mode.autocast": (None, None, False),
    "torch.cuda.amp.autocast": ("cuda", "float16", True), "torch.cpu.amp.autocast": ("cpu", "bfloat16", True),
}
AUTOCAST_DEFAULT_DTYPES = {"cpu": "bfloat16", "cuda": "float16"}
CHECKPOINTS = {"torch.utils.checkpoint.checkpoint"}
# Keywords of `checkpoint` itself, not passed on to the checkpointed function.
CHECKPOINT_OPTIONS = {"use_reentrant", "preserve_rng_state", "context_fn", "determinism_check", "debug"}
# Data-parallel wrappers: the model they wrap runs as it is, with the same parameters, and is their `.module`.
MODULE_WRAPPERS = {
    "torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel",
    "torch.nn.DataParallel", "torch.nn.parallel.DataParallel", "torch.nn.parallel.data_parallel.DataParallel",
    "torch.distributed.fsdp.FullyShardedDataParallel",
}
PASSTHROUGH = {"torch.compile", "torch.jit.script", "torch.jit.trace", "torch.nn.utils.spectral_norm",
               "torch.nn.utils.weight_norm", *MODULE_WRAPPERS}


# The class of `types.SimpleNamespace` objects: no methods, no bases; instances keep their attributes.
_NAMESPACE_CLASS = ClassValue(node=ast.ClassDef(name="SimpleNamespace", bases=[], keywords=[], body=[],
                                                decorator_list=[]),
                              name="SimpleNamespace", bases=[], attrs={}, is_module=False)


class DispatchMixin:
    """Call expressions, dispatch on the callee, qualified names, methods, attributes."""

    def attribute(self, base: Value, attr: str, node: ast.AST, frame: Frame) -> Value:
        """`base.attr`."""
        if isinstance(base, QualName):
            if attr == "__name__":  # `m.__class__.__name__` of a torch module: its class's name
                return ScalarValue(kind="str", constant=base.name.rsplit(".", 1)[-1])
            return QualName(f"{base.name}.{attr}")
        if isinstance(base, ModuleNamespace):
            found = base.env.get(attr)
            if self.interp.memo.recording:
                self.interp.memo.read(base.env, attr, found)
            return found if found is not None else UNKNOWN
        if isinstance(base, TensorValue):
            return self.tensor_attribute(base, attr, node)
        if isinstance(base, OptimizerValue) and attr == "param_groups":
            return base.param_groups()
        if isinstance(base, DistributionValue):
            return self.distribution_attribute(base, attr, node, frame)
        if attr == "module" and self.wrapped_modules.get(id(base)) is base and not (
                isinstance(base, InstanceValue) and attr in base.attrs):
            return base  # `model.module` of `model = DDP(net)`: the wrapped network itself
        if isinstance(base, ModuleValue):
            if base.kind == "ModuleDict" and (child := base.item(attr)) is not None:
                return child  # `self.transformer.wte` of a ModuleDict
            if attr in base.params:
                return base.params[attr]
            if attr in base.buffers:
                return base.buffers[attr]
            if attr == "training":
                return truth_value(base.training)
            if attr == "__class__" and base.entry is not None:
                return QualName(f"torch.nn.{base.kind}")
            return MethodRef(base, attr)
        if isinstance(base, InstanceValue):
            if attr in base.attrs:
                return base.attrs[attr]
            if attr == "training" and base.cls.is_module:
                return truth_value(base.training)  # True once built, False after `eval()`
            if attr == "_modules" and base.cls.is_module:
                # `self._modules["gcl_%d" % i]`: the submodules it holds, by attribute name
                return DictValue({k: v for k, v in base.attrs.items() if isinstance(v, (ModuleValue, InstanceValue))})
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
            if self.interp.memo.recording:
                self.interp.memo.read_fixed(found)  # class attributes are set once, by the class body
            if isinstance(found, FunctionValue) and found.kind == "classmethod":
                return BoundMethod(base, found)
            if found is None and attr == "apply" and base.autograd_function:
                return MethodRef(base, attr)  # `MyFn.apply(x)`: runs `forward` (calls/autograd_functions.py)
            return found if found is not None else UNKNOWN
        if isinstance(base, ScalarValue):
            if base.is_str and base.known and attr in strings.FOLDED_METHODS:
                return MethodRef(base, attr)  # `"Conv{}d".format(dims)`: computed (`strings.str_method`)
            return SCALAR
        if isinstance(base, ArgNamespaceValue):
            return base.get(attr)
        return MethodRef(base, attr)

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
        else:
            self.report.unknown_spreads.add(id(node))
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
        if isinstance(func, PartialValue):  # `act_layer = partial(nn.ReLU, inplace=True)`, then `act_layer()`
            return self.dispatch(func.func, [*func.args, *args], {**func.kwargs, **kwargs}, node, frame)
        return self.generic_op("call", args, kwargs, node, frame)

    def copy_value(self, value: Value, node: ast.Call, deep: bool, memo: dict | None = None) -> Value:
        """`copy.deepcopy(value)` (`copy.copy` with `deep` false: a new container holding the same items): modules
        and instances with new parameters and buffers of their own (DETR's `_get_clones(layer, n)`), leaf tensors
        as new leaves; what the analysis cannot copy is unknown."""
        memo = {} if memo is None else memo
        if id(value) in memo:
            return memo[id(value)]
        if isinstance(value, (ScalarValue, QualName, FunctionValue, ClassValue)) or value is UNKNOWN:
            return value
        if isinstance(value, TensorValue):
            if not deep:
                return value
            if value.is_tensor is not True or value.rg is None or (
                    value.leaf_rg is False and value.rg is not False and value.group.origin != "param"):
                return UNKNOWN  # what it is not known (an argument), or a non-leaf tensor (deepcopy raises)
            copied = self.fresh_tensor(node, value.rg, value.label, leaf=True, origin=value.group.origin,
                                       detail=value.group.origin_detail)
            copied.dtype = value.dtype
            memo[id(value)] = copied
            return copied
        item = (lambda v: self.copy_value(v, node, deep, memo)) if deep else (lambda v: v)
        if isinstance(value, SeqValue):
            copied = SeqValue([], imprecise=value.imprecise, open_ended=value.open_ended)
            memo[id(value)] = copied
            copied.items = [item(v) for v in value.items]
            return copied
        if isinstance(value, DictValue):
            copied = DictValue({})
            memo[id(value)] = copied
            copied.items = {k: item(v) for k, v in value.items.items()}
            return copied
        if isinstance(value, ModuleValue):
            copied = replace(value, label=f"<{value.kind}>", params={}, buffers={}, children=[],
                             keys=list(value.keys))
            memo[id(value)] = copied
            copied.params = {k: item(v) for k, v in value.params.items()}
            copied.buffers = {k: item(v) for k, v in value.buffers.items()}
            copied.children = [item(v) for v in value.children]
            return copied
        if isinstance(value, InstanceValue):
            copied = InstanceValue(cls=value.cls, label=value.label, training=value.training)
            memo[id(value)] = copied
            copied.attrs = {k: item(v) for k, v in value.attrs.items()}
            return copied
        return UNKNOWN

    def checkpoint(self, fn: Value, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`torch.utils.checkpoint.checkpoint(fn, *args, use_reentrant=...)`: `fn(*args)` runs here. Measured
        (torch 2.13): with `use_reentrant=False` an in-place write inside `fn` to a tensor an op of `fn` saved
        raises nothing and the gradient is what it would be with the save intact (the recomputation keeps its own
        copies), so such writes are allowed, as under `allow_mutation_on_saved_tensors`; reentrant (the default
        when `use_reentrant` is not passed) raises as plain code does. A write to an input after the call raises
        in both."""
        reentrant = const_bool(self._kw_node(node, "use_reentrant"))
        passed = {key: value for key, value in kwargs.items() if key not in CHECKPOINT_OPTIONS}
        saved = frame.allow_mutation
        if reentrant is False:
            frame.allow_mutation = True
        try:
            return self.dispatch(fn, list(args), passed, node, frame)
        finally:
            frame.allow_mutation = saved

    @staticmethod
    def autocast_context(name: str, args: list, kwargs: dict) -> AutocastCtx:
        """The region a call of one of autocast's spellings opens: its device, dtype and `enabled`, where the
        analysis knows them (a constant, a default, a setting of the file); what is chosen at run time stays
        unknown."""
        device, dtype, enabled_first = AUTOCASTS[name]

        def constant(value: Value | None, kind: type) -> object:
            got = value.constant if isinstance(value, ScalarValue) else None
            return got if isinstance(got, kind) else None

        if device is None:
            device = constant(kwargs.get("device_type", args[0] if args else None), str)
            enabled_value = kwargs.get("enabled", args[2] if len(args) > 2 else None)
            dtype_value = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        else:
            enabled_value = kwargs.get("enabled", args[0] if enabled_first and args else None)
            dtype_value = kwargs.get("dtype", args[1] if len(args) > 1 else None)
        if dtype_value is None:
            dtype = AUTOCAST_DEFAULT_DTYPES.get(device or "")
        else:
            dtype = dtypes.dtype_named(dtype_value.name) if isinstance(dtype_value, QualName) else None
        enabled: Tri = True if enabled_value is None else constant(enabled_value, bool)
        return AutocastCtx(device, dtype, enabled)

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
        if name in AUTOCASTS:
            return self.autocast_context(name, args, kwargs)
        if name in CHECKPOINTS and args:
            return self.checkpoint(args[0], args[1:], kwargs, node, frame)
        if name in PARSERS:
            return ArgParserValue()
        framework = framework_object(name)
        if framework is not None:
            return FrameworkValue(framework, f"<{name.rsplit('.', 1)[-1]}>")
        if name in PASSTHROUGH and args:
            if name in MODULE_WRAPPERS:
                self.wrapped_modules[id(args[0])] = args[0]
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
            written = node.args[0] if node.args else None
            self.record_write(frame, args[0], self.site(node, WriteForm.METHOD, last, written=written, frame=frame),
                              self._label(args[0], written or node), leaf_check=False)
            return args[0]
        if is_distribution(name):
            return self.make_distribution(name, args, kwargs, node)
        if name.startswith("torch.optim.") and last[:1].isupper() and "lr_scheduler" not in name:
            return self.make_optimizer(last, args, kwargs, node)
        if name.startswith("torch.nn.") and last[:1].isupper() and ".functional." not in name:
            return self.make_module(last, args, kwargs, node)
        if name in ("types.SimpleNamespace", "argparse.Namespace") and not args:
            # An object holding what it is given (`potential = SimpleNamespace(parameters=w, ...)`).
            return InstanceValue(cls=_NAMESPACE_CLASS, label=self.text(node), attrs=dict(kwargs))
        if name == "functools.partial" and args:
            return PartialValue(args[0], list(args[1:]), dict(kwargs))
        if name in ("copy.deepcopy", "copy.copy") and len(args) == 1:
            return self.copy_value(args[0], node, deep=last == "deepcopy")
        if name == "itertools.chain" and args and all(isinstance(a, (SeqValue, ParamsValue)) for a in args):
            return self.concatenate(list(args), node)
        if name.startswith("numpy."):
            self.numpy_call(name, args, kwargs, node, frame)
            if last in ("asarray", "asanyarray", "from_dlpack") and args and isinstance(args[0], TensorValue):
                return self.numpy_alias(args[0], node)  # np.asarray(t) shares t's memory (CPU)
            return self.numpy_result(name) or UNKNOWN  # autograd records nothing NumPy does
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
            self.record_write(frame, target, self.site(node, WriteForm.METHOD, last, written=node.args[0], frame=frame,
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
            self.record_write(frame, target, self.site(node, WriteForm.INPLACE_KW, op, written=node.args[0], frame=frame),
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
        shared = self.array_tensor(name, args, kwargs, node, frame)
        if shared is not None:
            return shared
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

    def call_method(self, receiver: Value, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`receiver.name(...)` for any receiver."""
        if not isinstance(receiver, (TensorValue, ModuleValue, InstanceValue, OptimizerValue, SeqValue, DictValue,
                                     SuperValue, FrameworkValue, ArgParserValue, DistributionValue)) \
                or (isinstance(receiver, TensorValue) and receiver.is_tensor is None):
            self.interp.unresolved_method_modes.setdefault(name, set()).add(frame.grad_mode)
        if isinstance(receiver, TensorValue):
            return self.tensor_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, UnknownValue) and receiver.array and name in ARRAY_METHODS:
            return UnknownValue(array=True)  # `a.astype(np.float32)`, `a.reshape(...)`: an array
        if isinstance(receiver, ScalarValue) and receiver.is_str:
            return strings.str_method(receiver, name, args, kwargs) or UNKNOWN
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
        if isinstance(receiver, ArgParserValue):
            return self.parser_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, DistributionValue):
            return self.distribution_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, FrameworkValue):
            if receiver.kind == "autograd_ctx":
                return self.autograd_ctx_method(receiver, name, args)
            return self.framework_method(receiver, name, args, kwargs, node, frame)
        if isinstance(receiver, ClassValue) and name == "apply" and receiver.autograd_function:
            return self.autograd_apply(receiver, args, kwargs, node, frame)
        if name == "step" and args and isinstance(args[0], OptimizerValue):  # scaler.step(optimizer)
            self.optimizer_step(args[0], node, frame)
            return SCALAR
        if name == "backward" and isinstance(receiver, UnknownValue):
            return SCALAR
        return self.generic_op(name, args, kwargs, node, frame, is_tensor=None)
