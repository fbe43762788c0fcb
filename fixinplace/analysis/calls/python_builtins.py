"""Python builtins and containers: `len`, `range`, `min`/`max`, `sum`, `isinstance`, `list`/`dict`/`tuple`,
`super()`, concatenating parameter lists, and dict methods on dicts with known keys."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    DictValue,
    InstanceValue,
    ModuleValue,
    ParamsValue,
    QualName,
    ScalarValue,
    SeqValue,
    TensorValue,
    UnknownValue,
    Value,
    constant_value,
    known_int,
    known_key,
    known_str,
    tri_or,
    truth_value,
)

from fixinplace.analysis.calls.modules import NAMED_CONTAINERS, SuperValue
from fixinplace.analysis.frame import MAX_UNROLL, Frame, join_values


class BuiltinsMixin:
    """Python builtins and dict methods."""

    def call_builtin(self, name: str, args: list, kwargs: dict, node: ast.Call, frame: Frame) -> Value:
        if name == "range":
            # A name `range` took is an integer from here on (a Python int, or an integer tensor, which cannot
            # require grad): `y / n` in the loop saves nothing of the tensor it scales.
            for arg_node, value in zip(node.args, args):
                if isinstance(arg_node, ast.Name) and not isinstance(value, ScalarValue) \
                        and getattr(value, "is_tensor", None) is not True and arg_node.id in frame.env:
                    frame.env[arg_node.id] = ScalarValue(kind="number")
            # `range(3)` with known bounds: its numbers, so a loop over it runs each iteration with its index.
            bounds = [known_int(a) for a in args]
            if 1 <= len(bounds) <= 3 and not kwargs and (len(bounds) < 3 or bounds[2] != 0) \
                    and all(b is not None for b in bounds):
                numbers = range(*bounds)  # type: ignore[arg-type]
                if len(numbers) <= MAX_UNROLL:
                    return SeqValue([constant_value(n) for n in numbers])
            return ScalarValue(is_range=True)
        if name == "len" and len(args) == 1:
            value = args[0]
            if isinstance(value, SeqValue) and not value.imprecise and not value.open_ended:
                return constant_value(len(value.items))
            if (text := known_str(value)) is not None:
                return constant_value(len(text))
            if isinstance(value, ModuleValue) and value.counted and value.kind in ("Sequential", "ModuleList"):
                return constant_value(len(value.children))  # `for i in range(len(self.layers))`: each by its index
            if isinstance(value, ModuleValue) and value.counted and value.kind in NAMED_CONTAINERS:
                return constant_value(len(value.keys))
            return ScalarValue(kind="number")
        if name in ("list", "tuple") and args:
            return args[0] if isinstance(args[0], (SeqValue, ParamsValue)) else UNKNOWN
        if name in ("isinstance", "hasattr") and len(args) == 2:
            known = self._builtin_truth(name, args[0], args[1])
            if known is not None:
                return truth_value(known)
        if name == "enumerate" and args:
            items = self.interp.iteration_items(args[0])
            if items is not None:
                return SeqValue([SeqValue([constant_value(index), item]) for index, item in enumerate(items)])
            return UNKNOWN
        if name == "zip" and args:
            lists = [self.interp.iteration_items(a) for a in args]
            if all(lst is not None for lst in lists):
                return SeqValue([SeqValue(list(group)) for group in zip(*lists)])  # type: ignore[arg-type]
            known = [lst for lst in lists if lst is not None]
            if not known:
                return UNKNOWN
            # `zip(detect.m, detect.stride)`: as many steps as the known items (the others may stop it sooner, as
            # a loop of unknown length may not run at all), each with one element of the unknown iterables.
            count = min(len(lst) for lst in known)
            elements = [self.interp.element_value(a, None) if lst is None else None for a, lst in zip(args, lists)]
            return SeqValue([SeqValue([lst[index] if lst is not None else element
                                       for lst, element in zip(lists, elements)]) for index in range(count)])
        if name == "sum" and args:
            items = self.interp.iteration_items(args[0]) or []
            tensors = [t for t in items if isinstance(t, TensorValue)]
            if tensors:
                return self.generic_sum(tensors, node, frame)
            return UNKNOWN
        if name in ("max", "min") and args:
            if len(args) == 1:
                return UNKNOWN
            if any(isinstance(a, ScalarValue) and not a.is_str for a in args) and not any(
                    getattr(a, "is_tensor", None) is True for a in args):
                # `min(x.shape[2], n)`: compared with a Python number, the others are numbers too (a tensor here
                # would be a one-element one, which code that compares sizes does not pass).
                return ScalarValue(kind="number")
            result = args[0]

            for a in args[1:]:
                result = join_values(result, a)
            return result
        if name == "getattr" and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant):
            return self.attribute(args[0], str(node.args[1].value), node, frame)
        if name == "getattr" and len(args) >= 2 and (attr := known_str(args[1])) is not None:
            # `getattr(nn, activation)()`, `getattr(nn, f"Conv{dims}d")`: a name the analysis computed
            return self.attribute(args[0], attr, node, frame)
        attr = known_str(args[1]) if name == "setattr" and len(args) == 3 else None
        if attr is not None and attr.isidentifier() and isinstance(args[0], InstanceValue):
            # `setattr(self, "layer%d" % i, Layer())`: as `self.layer0 = Layer()`
            owner = self.text(node.args[0]) if node.args else "self"
            self.interp.set_attribute(args[0], attr, args[2], f"{owner}.{attr}", frame)
            return SCALAR
        if name == "super":
            return SuperValue(frame)
        if name == "dict" and not args:
            return DictValue(dict(kwargs))
        if name == "dict" and len(args) == 1 and isinstance(args[0], DictValue):
            return DictValue({**args[0].items, **kwargs})  # `cfg = dict(cfg)`, `dict(base, inplace=True)`: a copy
        if name in ("print", "len", "int", "float", "bool", "str", "isinstance", "hasattr", "id", "hash", "repr",
                    "round", "callable", "issubclass", "format", "sorted", "set", "dict", "frozenset", "type",
                    "setattr", "delattr", "open", "input", "vars", "dir", "any", "all", "ord", "chr"):
            return SCALAR
        if name == "abs" and args and isinstance(args[0], TensorValue):
            return self.call_method(args[0], "__abs__", [], {}, node, frame)
        return UNKNOWN

    _BUILTIN_TYPES = {"str": str, "int": int, "float": float, "bool": bool, "complex": complex, "bytes": bytes,
                      "list": list, "tuple": tuple, "dict": dict, "set": set, "frozenset": frozenset}

    def _builtin_truth(self, name: str, value: Value, what: Value) -> bool | None:
        """`isinstance(c, str)` / `hasattr(c, "__iter__")` for a constant the analysis knows (a literal passed
        down): evaluated on the constant itself, which is a plain Python value."""
        if isinstance(value, ModuleValue) and name == "isinstance":
            return self._module_isinstance(value, what)
        if name == "isinstance" and (known := self._array_or_tensor_isinstance(value, what)) is not None:
            return known
        if isinstance(value, SeqValue):
            # A tuple or a list (which one is not tracked): decided when both answer alike.
            answers = {self._sample_truth(name, sample, what) for sample in ([], ())}
            return answers.pop() if len(answers) == 1 else None
        if not (isinstance(value, ScalarValue) and value.known):
            return None
        return self._sample_truth(name, value.constant, what)

    def _array_or_tensor_isinstance(self, value: Value, what: Value) -> bool | None:
        """`isinstance(x, np.ndarray)` / `isinstance(x, torch.Tensor)` for a value known to be a NumPy array or a
        tensor (`cast_inputs_to_pt(x)` converting what it is given): True when one class asked about is its own,
        False when every one is the other's, else None."""
        if isinstance(value, UnknownValue) and value.array:
            own, other = "numpy.ndarray", "torch.Tensor"
        elif isinstance(value, TensorValue) and value.is_tensor is True:
            own, other = "torch.Tensor", "numpy.ndarray"
        else:
            return None
        names = [item.name if isinstance(item, QualName) else None for item in self._classes(what)]
        if own in names:
            return True
        return False if names and all(n == other for n in names) else None

    def _module_isinstance(self, module: ModuleValue, what: Value) -> bool | None:
        """`isinstance(layer, nn.Conv2d)` for a torch module the analysis built: by its class, when every class
        asked about is a torch module class of the table (a subclass of another one is not told apart)."""
        classes = self._classes(what)
        if not classes or not self.table:
            return None
        answer = False
        for item in classes:
            if not (isinstance(item, QualName) and item.name.startswith("torch.nn.")):
                return None
            kind = item.name.rsplit(".", 1)[-1]
            if kind in ("Module", module.kind):
                answer = True
            elif self.table.module(kind) is None:
                return None  # a base class (`_ConvNd`, `Module` subclasses) or a class the table does not know
        return answer

    @staticmethod
    def _classes(what: Value) -> list:
        """The classes `isinstance(x, what)` asks about: one name, or a tuple of them."""
        return [what] if isinstance(what, QualName) else list(what.items) if isinstance(what, SeqValue) else []

    def _sample_truth(self, name: str, sample: object, what: Value) -> bool | None:
        if name == "hasattr":
            if (attr := known_str(what)) is not None:
                return hasattr(sample, attr)
            return None
        types = []
        for item in self._classes(what):
            kind = self._BUILTIN_TYPES.get(item.name[9:]) if isinstance(item, QualName) and \
                item.name.startswith("builtins.") else None
            if kind is None:
                return None
            types.append(kind)
        return isinstance(sample, tuple(types)) if types else None

    def concatenate(self, parts: list, node: ast.AST) -> Value:
        """`list(a.parameters()) + list(b.parameters())`, `itertools.chain(...)`: one list of the parts' items."""
        if any(isinstance(p, ParamsValue) for p in parts):
            params: list = []
            for part in parts:
                params.extend(part.params if isinstance(part, ParamsValue) else
                              [t for t in part.items if isinstance(t, TensorValue)])
            labels = [p.label for p in parts if isinstance(p, ParamsValue)]
            return ParamsValue(params, " and ".join(labels) if labels else self.text(node))
        items: list = []
        for part in parts:
            items.extend(part.items)
        return SeqValue(items)

    def generic_sum(self, tensors: list[TensorValue], node: ast.AST, frame: Frame) -> Value:
        """`sum(list_of_tensors)`: additions save nothing; the result needs every input's saves."""
        rg = tri_or(*[t.rg for t in tensors]) if frame.grad_mode is not False else False
        return self.fresh_tensor(node, rg, self.text(node), graph=self.graph_of(tensors, rg))

    def dict_method(self, d: DictValue, name: str, args: list, node: ast.Call) -> Value:
        """get/values/items/update/setdefault/pop/copy on a dict with known keys (the key a literal, or a str or
        int the analysis computed)."""
        key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        if key is None and args:
            key = known_key(args[0])
        if name == "copy" and not args:
            return DictValue(dict(d.items))
        if name == "get":
            if key in d.items:
                return d.items[key]
            return args[1] if len(args) > 1 else UNKNOWN
        if name == "values":
            return SeqValue(list(d.items.values()))
        if name == "items":
            return SeqValue([SeqValue([SCALAR, v]) for v in d.items.values()])
        if name == "setdefault" and key is not None:
            return d.items.setdefault(key, args[1] if len(args) > 1 else SCALAR)
        if name == "update" and args and isinstance(args[0], DictValue):
            d.items.update(args[0].items)
        elif name == "pop" and key is not None:
            return d.items.pop(key, args[1] if len(args) > 1 else UNKNOWN)
        return UNKNOWN
