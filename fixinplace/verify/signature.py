"""What input synthesis needs to know about a function, read from its source (parent process: no torch).

A changed function can be called on synthesised inputs when every required parameter is a tensor or a Python
`int`, `bool` or `float` (given fixed values): a tensor is unannotated, or annotated as a tensor (`Tensor`, `torch.Tensor`, `Optional[Tensor]`, `Annotated[Tensor, ...]`, jaxtyping-style
`Float[Tensor, "b 3"]`; `LongTensor`, `Int[Tensor, ...]` and `BoolTensor`, `Bool[Tensor, ...]` are integer and
boolean tensors, and so is an unannotated parameter the body indexes with, `x[idx]` or `x.gather(1, idx)`). A shape comes from the annotation when it says one: `Annotated[Tensor, (2, 3)]`,
`Annotated[Tensor, "2 3"]` or `Float[Tensor, "batch 3"]` (integers as written; a named dimension gets one size per
name in the function, 2, 3, 4, ... in order of first use; `...` and `*name` stand for no dimension). A method is
called on an instance of its class built without arguments (the class must be at module level); a changed
`__init__` is verified through the class's `forward`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

@dataclass
class SynthSpec:
    """How to call a function on synthesised inputs: `entry` (dotted), `cls` (instance to build, or ""),
    one `(name, shape or None)` per tensor parameter; `reason` says why it cannot be done (then `ok` is False)."""

    entry: str = ""
    cls: str = ""
    params: list[tuple[str, list[int] | None]] = field(default_factory=list)
    # parameter -> "int" or "bool" (integer and boolean tensors; others are float), or "py_int", "py_bool",
    # "py_float" (Python scalars, see PYTHON_SCALARS)
    kinds: dict[str, str] = field(default_factory=dict)
    reason: str = ""

    @property
    def ok(self) -> bool:
        return not self.reason

    def to_json(self) -> dict:
        return {"entry": self.entry, "cls": self.cls, "params": [[n, s] for n, s in self.params],
                "kinds": dict(self.kinds)}


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value.rsplit(".", 1)[-1]
    return ""


def _dims(text: str, names: dict[str, int]) -> list[int] | None:
    shape: list[int] = []
    for token in text.replace(",", " ").split():
        if token == "..." or token.startswith("*"):
            continue
        if token.isdigit():
            shape.append(int(token))
        elif token.isidentifier():
            shape.append(names.setdefault(token, 2 + len(names)))
        else:
            return None
    return shape


def _shape_of(meta: ast.AST, names: dict[str, int]) -> list[int] | None:
    if isinstance(meta, ast.Constant) and isinstance(meta.value, str):
        return _dims(meta.value, names)
    if isinstance(meta, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and type(e.value) is int and e.value > 0 for e in meta.elts):
        return [e.value for e in meta.elts]  # type: ignore[attr-defined]
    return None


def _core(annotation: ast.AST | None) -> ast.AST | None:
    """An annotation with a string form parsed and `Optional[X]` or `X | None` reduced to `X` (a union of several
    types is returned as it is). Raises `SyntaxError` for a string annotation that does not parse."""
    while True:
        if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
            annotation = ast.parse(annotation.value, mode="eval").body
        elif isinstance(annotation, ast.Subscript) and _name(annotation.value) == "Optional":
            inner = annotation.slice
            annotation = inner.elts[0] if isinstance(inner, ast.Tuple) else inner
        elif isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
            sides = [s for s in (annotation.left, annotation.right)
                     if not (isinstance(s, ast.Constant) and s.value is None)]
            if len(sides) != 1:
                return annotation
            annotation = sides[0]
        else:
            return annotation


def classify(annotation: ast.AST | None, names: dict[str, int]) -> tuple[bool, list[int] | None]:
    """(is a tensor parameter, shape or None) for one parameter annotation."""
    if annotation is None:
        return True, None
    try:
        annotation = _core(annotation)
    except SyntaxError:
        return True, None
    if isinstance(annotation, ast.Subscript):
        head = _name(annotation.value)
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if head == "Annotated":
            tensor, shape = classify(items[0], names)
            for meta in items[1:]:
                shape = shape or _shape_of(meta, names)
            return tensor, shape
        if len(items) == 2 and "Tensor" in _name(items[0]):  # jaxtyping: Float[Tensor, "b 3"]
            return True, _shape_of(items[1], names)
        return False, None
    name = _name(annotation)
    if "Tensor" in name or name == "Parameter":
        return True, None
    return False, None  # int, float, a class of the user's, a union of several: not a tensor


_INT_HEADS = {"Int", "Int8", "Int16", "Int32", "Int64", "UInt8", "Integer", "Long"}


def element_kind(annotation: ast.AST | None) -> str:
    """"int" (`LongTensor`, `IntTensor`, jaxtyping `Int[...]`/`Int64[...]`), "bool" (`BoolTensor`, `Bool[...]`)
    or "float" (anything else) for a tensor parameter's annotation."""
    try:
        annotation = _core(annotation)
    except SyntaxError:
        return "float"
    if isinstance(annotation, ast.Subscript):
        head = _name(annotation.value)
        items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        if head == "Annotated":
            return element_kind(items[0])
        return "int" if head in _INT_HEADS else "bool" if head == "Bool" else "float"
    name = _name(annotation) if annotation is not None else ""
    if name in ("LongTensor", "IntTensor", "ShortTensor", "ByteTensor", "CharTensor"):
        return "int"
    return "bool" if name == "BoolTensor" else "float"


#: Python scalar parameters get a fixed value: `n: int` 1 (a count, or a dimension of any tensor of 2 or more
#: dimensions), `flag: bool` True, `eps: float` 0.5.
PYTHON_SCALARS = {"int": "py_int", "bool": "py_bool", "float": "py_float"}


def python_scalar(annotation: ast.AST | None) -> str:
    """"py_int", "py_bool" or "py_float" for a parameter annotated `int`, `bool`, `float` (or `Optional[...]` of
    one), else ""."""
    try:
        annotation = _core(annotation)
    except SyntaxError:
        return ""
    return PYTHON_SCALARS.get(annotation.id, "") if isinstance(annotation, ast.Name) else ""


def synth_spec(qualname: str, fn: ast.AST, classes: dict[str, ast.ClassDef]) -> SynthSpec:
    """How to call `qualname` (its `def` node `fn`) on synthesised inputs, or why that cannot be done."""
    spec = SynthSpec(entry=qualname)
    if "<locals>" in qualname or qualname == "<module>":
        spec.reason = "a nested function or module-level code: no inputs can be synthesised for it"
        return spec
    parts = qualname.split(".")
    if len(parts) > 2:
        spec.reason = f"{qualname}: a method of a nested class: no inputs can be synthesised for it"
        return spec
    decorators = {_name(d) for d in fn.decorator_list}  # type: ignore[attr-defined]
    args = fn.args  # type: ignore[attr-defined]
    positional = list(args.posonlyargs) + list(args.args)
    if len(parts) == 2:
        if "classmethod" in decorators or "property" in decorators:
            spec.reason = f"{qualname}: a classmethod or property: no inputs can be synthesised for it"
            return spec
        if "staticmethod" not in decorators:
            spec.cls = parts[0]
            positional = positional[1:]
            if parts[1] == "__init__":  # verified through the class's forward
                forward = next((n for n in classes[parts[0]].body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                                and n.name == "forward"), None) if parts[0] in classes else None
                if forward is None:
                    spec.reason = f"{qualname}: the class has no forward to call on synthesised inputs"
                    return spec
                return synth_spec(f"{parts[0]}.forward", forward, classes)
    if isinstance(fn, ast.AsyncFunctionDef):
        spec.reason = f"{qualname}: a coroutine function: no inputs can be synthesised for it"
        return spec
    required = positional[: len(positional) - len(args.defaults)] if args.defaults else positional
    if any(d is None for d in args.kw_defaults):
        spec.reason = f"{qualname}: a required keyword-only parameter: no inputs can be synthesised for it"
        return spec
    names: dict[str, int] = {}
    used_as_index = index_parameters(fn)
    for a in required:
        scalar = python_scalar(a.annotation)
        if scalar:
            spec.params.append((a.arg, []))  # no shape to search for
            spec.kinds[a.arg] = scalar
            continue
        tensor, shape = classify(a.annotation, names)
        if not tensor:
            spec.reason = (f"{qualname}: parameter {a.arg!r} is not a tensor ({ast.unparse(a.annotation)}): "
                           "no inputs can be synthesised for it")
            return spec
        spec.params.append((a.arg, shape))
        kind = element_kind(a.annotation)
        if kind == "float" and a.annotation is None and a.arg in used_as_index:
            kind = "int"  # unannotated, but the function indexes with it: `x[idx]`, `x.gather(1, idx)`
        if kind != "float":
            spec.kinds[a.arg] = kind
    return spec


#: Tensor methods and torch functions whose index argument is at this position (after the receiver, for methods;
#: torch functions count their input first).
_INDEX_POSITIONS = {"gather": 1, "index_select": 1, "scatter": 1, "scatter_": 1, "scatter_add": 1, "scatter_add_": 1,
                    "index_add": 1, "index_add_": 1, "index_copy": 1, "index_copy_": 1, "index_fill": 1,
                    "index_fill_": 1, "take": 0, "take_along_dim": 0, "embedding": 0}


def index_parameters(fn: ast.AST) -> set[str]:
    """Names the function body uses as integer indices: a subscript's index (`x[idx]`, `x[:, idx]`), the index
    argument of `gather`/`index_select`/`scatter`/`take`/`F.embedding`, an `index=` or `indices=` keyword."""
    names: set[str] = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Subscript):
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            names.update(p.id for p in parts if isinstance(p, ast.Name))
        elif isinstance(node, ast.Call):
            name = _name(node.func)
            position = _INDEX_POSITIONS.get(name)
            if position is not None:
                is_function = isinstance(node.func, ast.Attribute) and _name(node.func.value) in (
                    "torch", "F", "functional")
                at = position + 1 if is_function and name != "embedding" else position
                if len(node.args) > at and isinstance(node.args[at], ast.Name):
                    names.add(node.args[at].id)
            names.update(k.value.id for k in node.keywords
                         if k.arg in ("index", "indices") and isinstance(k.value, ast.Name))
    return names


def top_classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    """Module-level classes by name."""
    return {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
