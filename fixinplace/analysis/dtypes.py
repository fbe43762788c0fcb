"""Which dtype a tensor has, where the analysis can know it.

A tensor's dtype is recorded only when it is certain: a factory's (`torch.zeros(...)`: the measured dtype of a
tensor made from sizes, or its `dtype=` argument), a module's parameters (the default dtype), a conversion
(`.double()`, `.to(torch.float16)`), and what the ops of the table measurably give (`OpEntry.dtype`: the dtype of
their floating-point inputs, or a fixed one such as `bool` for comparisons). Everything else is unknown (None).
The fix stage uses it to tell an out-of-place rewrite that keeps the dtype (`out = out + residual` with both in
float32) from one that would promote it.
"""

from __future__ import annotations

from typing import Optional

# `torch.<name>` dtype objects and their canonical names (the Tensor API's own aliases).
_ALIASES = {
    "float": "float32", "double": "float64", "half": "float16", "long": "int64", "int": "int32", "short": "int16",
    "cfloat": "complex64", "cdouble": "complex128", "chalf": "complex32",
}
_NAMES = {
    "float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool", "complex64",
    "complex128", "complex32",
}
# Tensor conversion methods and the dtype they give.
CONVERSIONS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
               "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool",
               "cfloat": "complex64", "cdouble": "complex128"}
DEFAULT_FLOAT = "float32"
# The floating dtypes autocast casts to its own for the ops it casts (a float64 tensor is left as it is), as run
# under torch 2.13: a bfloat16 input in a bfloat16 region is kept as itself.
AUTOCAST_CASTS = frozenset({"float32", "float16", "bfloat16"})


def dtype_named(qualname: str) -> Optional[str]:
    """The dtype a `torch.<name>` reference names (`torch.float64`, `torch.long`), or None."""
    if not qualname.startswith("torch."):
        return None
    name = qualname[len("torch."):]
    name = _ALIASES.get(name, name)
    return name if name in _NAMES else None


def is_floating(dtype: Optional[str]) -> bool:
    return dtype is not None and (dtype.startswith("float") or dtype == "bfloat16")


def of_op(relation: Optional[str], inputs: list[Optional[str]]) -> Optional[str]:
    """The dtype of an op's result from its measured relation and its tensor inputs' dtypes: the inputs' common
    floating-point dtype when the result follows it (a Python number does not change a floating-point dtype), the
    fixed dtype the op always gives, else None."""
    if relation is None or relation == "sometimes":
        return None
    if relation != "input":
        return relation
    if not inputs or any(d is None for d in inputs) or len(set(inputs)) != 1:
        return None
    common = inputs[0]
    return common if is_floating(common) else None  # integer inputs: exp, mean, x * 0.5 give floats


def joined(a: Optional[str], b: Optional[str]) -> Optional[str]:
    """The dtype known on both paths after a branch."""
    return a if a == b else None
