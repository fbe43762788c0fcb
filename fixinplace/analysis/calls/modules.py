"""`torch.nn` modules and file-defined classes: building a module (parameters, in-place flags, Sequential and
ModuleList), calling one (its forward's saves and writes), module methods (train/eval, parameters(),
requires_grad_), instantiating and calling instances of file-defined classes, and `super()`."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    CONTAINER_ATTR,
    LAYER_ATTR,
    SCALAR,
    UNKNOWN,
    AutocastEffect,
    ClassValue,
    DictValue,
    FunctionValue,
    InstanceValue,
    ModuleValue,
    ParamsValue,
    QualName,
    Save,
    ScalarValue,
    SeqValue,
    TensorValue,
    Tri,
    Value,
    constant_value,
    known_int,
    known_str,
    tri_or,
)

from fixinplace.analysis import dtypes
from fixinplace.analysis.calls.common import const_bool
from fixinplace.analysis.calls.frameworks import LIGHTNING_METHODS, is_lightning_class
from fixinplace.analysis.calls.optimizers import is_optimizer_base
from fixinplace.analysis.frame import Frame
from fixinplace.facts import Span, WriteForm

MODULE_CONTAINERS = {"Sequential", "ModuleList"}
PARAMETER_CONTAINERS = {"ParameterList", "ParameterDict"}  # their parameters are held by name ("0", "1", ...)
NAMED_CONTAINERS = {"ModuleDict", *PARAMETER_CONTAINERS}  # items held by name (`ModuleValue.named`)
# The methods of each container held by name that `named_container_method` models.
_NAMED_METHODS = {"ModuleDict": {"keys", "values", "items", "update", "pop"},
                  "ParameterList": {"append", "extend", "keys", "values", "items", "update"},
                  "ParameterDict": {"append", "extend", "keys", "values", "items", "update"}}


def container_kind(base: Value) -> str | None:
    """"Sequential" / "ModuleList" when a class base is that `torch.nn` container, else None."""
    if isinstance(base, QualName) and base.name.startswith("torch.nn."):
        last = base.name.rsplit(".", 1)[-1]
        return last if last in MODULE_CONTAINERS else None
    return None


def layer_kind(base: Value) -> str | None:
    """The `torch.nn` layer a class base is (`nn.Conv2d`: "Conv2d"), when it is one other than `Module` and the
    containers, else None."""
    if isinstance(base, QualName) and base.name.startswith("torch.nn.") and ".functional." not in base.name:
        last = base.name.rsplit(".", 1)[-1]
        if last[:1].isupper() and last not in MODULE_CONTAINERS and last != "Module":
            return last
    return None


class ModulesMixin:
    """nn.Module construction, application and methods; file-defined classes."""

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
            site = self.site(node, WriteForm.LIBRARY, entry.delegate.rpartition(".")[2], frame=frame,
                             extra=(("library", why),))
            self.record_write(frame, target, site, getattr(target, "label", pname), leaf_check=False)

    def make_module(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> Value:
        """Construct a `torch.nn` module from its table entry."""
        label = f"<{kind}>"
        module = ModuleValue(kind=kind, label=label, line=node.lineno, node=node)
        if kind == "ModuleDict":
            named = self._named_modules(args[0]) if args else {}
            module.keys, module.children = list(named), list(named.values())
            return module
        if kind in PARAMETER_CONTAINERS:
            if kind == "ParameterList":
                named = {str(i): v for i, v in enumerate(self.interp.iteration_items(args[0]) or [])} if args else {}
            else:
                named = self._named_modules(args[0]) if args else {}
            for key, value in named.items():
                self.set_named_item(module, key, value, node)
            return module
        if kind in MODULE_CONTAINERS:
            items = list(args)
            if isinstance(node, ast.Call) and any(isinstance(a, ast.Starred) for a in node.args) \
                    and id(node) not in self._known_spreads:
                module.counted = False  # `nn.Sequential(*layers)` of a list whose length is not known
            if len(args) == 1 and isinstance(args[0], DictValue):
                items = list(args[0].items.values())  # `nn.Sequential(OrderedDict([("conv", ...), ...]))`
            elif kind == "ModuleList" and args:
                items = self.interp.iteration_items(args[0])
                module.counted = items is not None and not (
                    isinstance(args[0], SeqValue) and (args[0].imprecise or args[0].open_ended))
                items = [UNKNOWN] if items is None else items
            # A layer the analysis does not know stays in its place (calling it gives an unknown value): dropped,
            # it would make the container pass its input through unchanged.
            module.children = [m if isinstance(m, (ModuleValue, InstanceValue)) else UNKNOWN for m in items]
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
                passed = module.constructor.get("inplace")  # `inplace=inplace`, `**params`: a known bool
                if flag is None and isinstance(passed, ScalarValue) and passed.kind == "bool" and passed.known:
                    flag = bool(passed.constant)
                    module.inplace_origin = passed.origin
                module.inplace = bool(flag)
        return module

    def _param(self, node: ast.AST, owner: str, pname: str) -> TensorValue:
        value = self.fresh_tensor(node, True, f"{owner}.{pname}", leaf=True, origin="param",
                                  detail=f"parameter `{pname}` of the module built at line {node.lineno}")
        value.dtype = self.default_float()
        return value

    def default_float(self) -> str | None:
        """The default dtype, unless the file may change it (`torch.set_default_dtype`)."""
        return self.interp.default_float

    def module_method(self, module, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """Methods of modules: parameters(), eval(), train(), to(), forward(), ..."""
        if isinstance(module, InstanceValue) and name in LIGHTNING_METHODS and is_lightning_class(module.cls) \
                and self.interp.lookup_class_attr(module.cls, name) is None:
            return self.lightning_method(module, name, args, kwargs, node, frame)
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
        if name == "apply" and args and isinstance(args[0], FunctionValue):
            # `model.apply(fn)` calls `fn` on every submodule, then on the module (`m.inplace = True` for each
            # ReLU, PointNet++'s `inplace_relu`; weight inits).
            for each in [*self.submodules(module, recursive=True), module]:
                self.call_function(args[0], [each], {}, node, frame)
            return module
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
            elif isinstance(module, InstanceValue) and (attr := known_str(args[0])) is not None:
                module.attrs[attr] = args[1]
            return SCALAR
        if name in ("append", "extend", "insert") and isinstance(module, ModuleValue) \
                and module.kind in ("ModuleList", "Sequential"):
            # `self.blocks.append(Block(...))`: the container holds it (and returns itself); under a branch or
            # in a loop, how many it ends up holding is not known.
            if frame.path or frame.loop_tags or (name == "extend" and args and (
                    self.interp.iteration_items(args[0]) is None
                    or isinstance(args[0], SeqValue) and (args[0].imprecise or args[0].open_ended))):
                module.counted = False
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
        if isinstance(module, ModuleValue) and name in _NAMED_METHODS.get(module.kind, ()):
            return self.named_container_method(module, name, args, node)
        if name in ("children", "modules"):
            found = self.submodules(module, recursive=name == "modules")
            return SeqValue(([module] if name == "modules" else []) + found)
        return self.generic_op(name, args, kwargs, node, frame, is_tensor=None)

    def _named_modules(self, value: Value) -> dict:
        """The (name -> module) a `nn.ModuleDict` is built from or updated with: a dict with known keys, or a list
        of (name, module) pairs whose names are known; {} when they are not known."""
        if isinstance(value, DictValue):
            return {k: v for k, v in value.items.items() if isinstance(k, str)}
        items = self.interp.iteration_items(value)
        named: dict = {}
        for item in items or []:
            pair = item.items if isinstance(item, SeqValue) and len(item.items) == 2 else None
            key = known_str(pair[0]) if pair else None
            if key is None:
                return {}
            named[key] = pair[1]  # type: ignore[index]
        return named

    def named_container_method(self, module: ModuleValue, name: str, args: list, node: ast.Call) -> Value:
        """`keys()`, `values()`, `items()` and `update(...)` of a container that holds its items by name, `pop(name)`
        of a `nn.ModuleDict`, `append`/`extend` of a `nn.ParameterList`."""
        if name in ("keys", "values", "items"):
            named = module.named()
            if name == "keys":
                return SeqValue([constant_value(k) for k, _ in named])
            if name == "values":
                return SeqValue([v for _, v in named])
            return SeqValue([SeqValue([constant_value(k), v]) for k, v in named])
        if name == "update" and args:
            for key, value in self._named_modules(args[0]).items():
                self.set_named_item(module, key, value, node)
            return SCALAR
        if module.kind == "ModuleDict":
            if name == "pop" and args and (key := known_str(args[0])) in module.keys:
                at = module.keys.index(key)
                module.keys.pop(at)
                return module.children.pop(at)
            return UNKNOWN
        if module.kind == "ParameterList" and name in ("append", "extend") and args:
            for value in [args[0]] if name == "append" else self.interp.iteration_items(args[0]) or []:
                self.set_named_item(module, str(len(module.keys)), value, node)
            return module
        return UNKNOWN

    def set_named_item(self, module: ModuleValue, key: str, value: Value, node: ast.AST) -> None:
        """`container[key] = value` (or its `update`/`append`) of a container held by name: replaces the item of
        that name, else adds it last. A `ModuleDict` holds what it is given; a parameter container holds a
        parameter as it is and makes a new parameter of a plain tensor (torch wraps it in `nn.Parameter`), and
        tracks nothing else."""
        if module.kind == "ModuleDict":
            if key in module.keys:
                module.children[module.keys.index(key)] = value
            else:
                module.keys.append(key)
                module.children.append(value)
            return
        if isinstance(value, TensorValue) and value.group.origin == "param":
            module.params[key] = value
        elif isinstance(value, TensorValue):
            module.params[key] = self._param(node, module.label, key)
        if key not in module.keys:
            module.keys.append(key)

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
            origin = module.inplace_origin
            literal = Span(*self.report.span(origin)) if origin is not None and not self.report.file_of(origin) \
                else None
            # The line of a `True` set in another file still names it in the message (no rewrite goes there).
            extra = (("inplace_line", str(origin.lineno)),) if origin is not None and literal is None else ()
            site = self.site(node, WriteForm.INPLACE_MODULE, op, module_ctor=ctor_span, inplace_literal=literal,
                             written=written, frame=frame, extra=extra)
            if idle is None:
                site.setting.module_condition = " ".join(f"`{name}`" for name in entry.inplace_idle_when_zero)
            self.record_write(frame, x, site, label, certain=not module.maybe_absent and idle is False)
            result = x
            result.rg = tri_or(x.rg, rg_out) if rg_out is not False else x.rg
        else:
            result = self.fresh_tensor(node, rg_out, self.text(node), graph=graph)
            result.single, result.outputs = entry.outputs == 1, entry.outputs
            if isinstance(x, TensorValue):
                result.dtype = self.autocast_dtype(entry.autocast_on, [x, *params], frame) or \
                    dtypes.of_op(entry.dtype, [x.dtype])
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
                # `.clone()` of the call is the output's clone only when the call returns that one tensor (an LSTM
                # returns a tuple: its output is cloned where it is unpacked, which this save does not record).
                target, clonable = result, not module.inplace and entry.outputs == 1
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
            cast = AutocastEffect(False, None, saved.device) if item == "output" or item.startswith("buffer:") else \
                self.autocast_copy(entry.autocast_on, target, module.kind, frame, saved.device)
            if cast.copy:
                continue  # autocast keeps a cast copy of the input or the parameter
            certain = saved.certain and rg_out is True and frame.grad_mode is True
            saves += self.record_save(frame, target, module.kind, role, node, certain, operand=operand,
                                      clonable=clonable, device=cast.device, autocast_unknown=cast.doubt)
        result.graph = graph | result.graph | frozenset(saves)
        return result

    def call_instance(self, inst: InstanceValue, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        """`model(x)` for a file-defined class: runs its `forward` (or `__call__`), else the `nn.Sequential` it
        subclasses."""
        for name in ("forward", "__call__"):
            fn = self.interp.lookup_class_attr(inst.cls, name)
            if isinstance(fn, FunctionValue):
                return self.call_function(fn, args, kwargs, node, frame, self_value=inst)
        container = inst.attrs.get(CONTAINER_ATTR)
        if isinstance(container, ModuleValue) and container.kind == "Sequential":
            return self.call_module(container, args, kwargs, node, frame)
        layer = inst.attrs.get(LAYER_ATTR)
        if isinstance(layer, ModuleValue):  # a subclass of a torch layer with no `forward` of its own
            return self.call_module(layer, args, kwargs, node, frame)
        params = self.parameters_of(inst)
        return self.generic_op(inst.cls.name, list(args) + params, kwargs, node, frame, is_tensor=None)

    def _layer_super(self, inst: InstanceValue, kind: str, name: str, args: list, kwargs: dict, node: ast.Call,
                     frame: Frame) -> Value:
        """`super().__init__(...)` / `super().forward(x)` in a subclass of a `torch.nn` layer: the instance holds
        the layer (its parameters and buffers become the instance's attributes), and `forward` applies it with
        the parameters the instance holds now (a subclass may replace `self.weight`)."""
        if name == "__init__":
            layer = self.make_module(kind, args, kwargs, node)
            inst.attrs[LAYER_ATTR] = layer
            if isinstance(layer, ModuleValue):
                for pname, value in {**layer.params, **layer.buffers}.items():
                    value.group.rename(f"self.{pname}")
                    value.label = f"self.{pname}"
                    inst.attrs[pname] = value
            return SCALAR
        layer = inst.attrs.get(LAYER_ATTR)
        if name in ("forward", "__call__") and isinstance(layer, ModuleValue):
            for table in (layer.params, layer.buffers):
                for pname in table:
                    if isinstance(inst.attrs.get(pname), TensorValue):
                        table[pname] = inst.attrs[pname]
            return self.call_module(layer, args, kwargs, node, frame)
        return UNKNOWN

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
                if name == "__init__" and is_optimizer_base(base):
                    self.optimizer_base_init(inst, args, kwargs)
                    return SCALAR
                container = container_kind(base)
                if name == "__init__" and container is not None:
                    # `class MLP(nn.Sequential)` building its layers and passing them up: the instance holds
                    # the container, which runs them in order when the class has no `forward` of its own.
                    inst.attrs[CONTAINER_ATTR] = self.make_module(container, args, kwargs, node)
                    return SCALAR
                layer = layer_kind(base)
                if layer is not None and self.table is not None and self.table.module(layer) is not None:
                    return self._layer_super(inst, layer, name, args, kwargs, node, frame)
                if isinstance(base, ClassValue):
                    fn = self.interp.lookup_class_attr(base, name)
                    if isinstance(fn, FunctionValue):
                        return self.call_function(fn, args, kwargs, node, frame, self_value=inst,
                                                  constructing=name == "__init__")
        return SCALAR if name == "__init__" else UNKNOWN


class SuperValue(Value):
    """`super()` inside a method: knows the instance and the class the method belongs to."""

    def __init__(self, frame: Frame) -> None:
        self.instance = frame.self_value
        self.owner = frame.owner
