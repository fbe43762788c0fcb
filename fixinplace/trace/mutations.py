"""Which torch calls write a tensor in place, and which tensors they write."""

from __future__ import annotations

from typing import Any, List, Optional, Tuple

# Trailing-underscore names that change no tensor's values.
_NOT_WRITES = frozenset({"requires_grad_", "retain_grad", "share_memory_", "pin_memory_", "_coalesced_", "record_stream"})
_INPLACE_DUNDERS = frozenset({
    "__setitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__", "__ipow__",
    "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__",
})

_cache: dict = {}


def op_name(func: Any) -> str:
    """The name a report shows for a torch callable (`add_`, `__setitem__`, `_foreach_add_`, `linear`)."""
    return getattr(func, "__name__", None) or type(func).__name__


def writes_by_name(name: str) -> bool:
    """Whether an op of this name writes its first argument in place (`add_`, `_foreach_mul_`, `__setitem__`)."""
    if name in _INPLACE_DUNDERS:
        return True
    return name.endswith("_") and not name.endswith("__") and name not in _NOT_WRITES


def classify(func: Any) -> Tuple[str, bool]:
    """(op name, whether it writes its first argument by name), cached per callable."""
    try:
        return _cache[func]
    except (KeyError, TypeError):
        pass
    name = op_name(func)
    answer = (name, writes_by_name(name))
    try:
        if len(_cache) < 100_000:
            _cache[func] = answer
    except TypeError:  # unhashable callable
        pass
    return answer


def _tensors(value: Any, tensor_type: type) -> List[Any]:
    if isinstance(value, tensor_type):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, tensor_type)]
    return []


def written_tensors(name: str, by_name: bool, args: tuple, kwargs: Optional[dict], tensor_type: type) -> Tuple[List[Any], str]:
    """The tensors a call writes in place, and the op as the report names it (`relu(inplace=True)`, `exp(out=)`).

    Empty when the call writes nothing: a trailing-underscore op or in-place dunder writes its first argument
    (a list of tensors for `_foreach_*_` and `_fused_*_`), `inplace=True` writes the input, `out=` the out tensor.
    """
    written: List[Any] = []
    label = name
    if by_name and args:
        written = _tensors(args[0], tensor_type)
    if kwargs:
        if kwargs.get("inplace") is True:
            target = args[0] if args else kwargs.get("input")
            written = written + _tensors(target, tensor_type)
            label = f"{name}(inplace=True)"
        out = kwargs.get("out")
        if out is not None:
            written = written + _tensors(out, tensor_type)
            label = f"{name}(out=)"
    return written, label


def bumps_no_version(name: str) -> bool:
    """Whether the op writes without bumping version counters (fused optimizers on CPU, measured on torch 2.13)."""
    return name.startswith("_fused_")
