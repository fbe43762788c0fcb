"""Strings the analysis can compute: `"Conv{}d".format(dims)`, `f"Conv{dims}d"`, `"Conv%dd" % dims`,
`name.lower()`, with every part a known constant. Class and layer names are built this way
(`getattr(nn, "Conv{}d".format(dimensions))`), and a name the analysis knows is a layer it can run.

Only plain replacement fields are folded (no format spec, no attribute or index lookup in a field), and results
are kept short: user code is data here, never a way to make the analysis allocate or run anything."""

from __future__ import annotations

import ast
import string

from fixinplace.analysis.values import ScalarValue, Value, constant_value

MAX_LENGTH = 256
# Methods of `str` that depend on nothing but their known arguments.
PURE_METHODS = {"lower", "upper", "capitalize", "title", "strip", "lstrip", "rstrip", "replace", "removeprefix",
                "removesuffix", "casefold", "swapcase"}
# Methods of `str` that answer a question about it (`classname.find("ReLU") != -1`: which modules a function given
# to `model.apply` changes).
QUERY_METHODS = {"find", "rfind", "startswith", "endswith", "count"}
FOLDED_METHODS = PURE_METHODS | QUERY_METHODS | {"format"}


def _plain(value: Value) -> object:
    """The Python value of a known str, number or bool constant (what a replacement field may show), else None."""
    if isinstance(value, ScalarValue) and value.known and type(value.constant) in (str, int, float, bool):
        return value.constant
    return None


def _fields_plain(template: str) -> bool:
    """Whether every replacement field of a `str.format` template is `{}`, `{0}` or `{name}` with no spec."""
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError:
        return False
    for _, field, spec, conversion in parsed:
        if field is None:
            continue
        if spec or conversion not in (None, "s", "r") or not (field == "" or field.isdigit() or field.isidentifier()):
            return False
    return True


def _short(text: object) -> ScalarValue | None:
    return ScalarValue(kind="str", constant=text) if isinstance(text, str) and len(text) <= MAX_LENGTH else None


def str_method(receiver: ScalarValue, name: str, args: list, kwargs: dict) -> ScalarValue | None:
    """`receiver.name(*args, **kwargs)` for a known str receiver and known arguments, when computable."""
    if not (receiver.known and isinstance(receiver.constant, str)):
        return None
    values = [_plain(a) for a in args]
    named = {k: _plain(v) for k, v in kwargs.items()}
    if any(v is None for v in values) or any(v is None for v in named.values()):
        return None
    template = receiver.constant
    try:
        if name == "format" and _fields_plain(template):
            return _short(template.format(*values, **named))
        if name in PURE_METHODS and not named and all(isinstance(v, str) for v in values) \
                and sum(len(v) for v in values) <= MAX_LENGTH:
            if name == "replace" and len(template) * (1 + sum(len(v) for v in values)) > 4 * MAX_LENGTH:
                return None
            return _short(getattr(template, name)(*values))
        if name in QUERY_METHODS and not named and 1 <= len(values) <= 3 and isinstance(values[0], str) \
                and all(isinstance(v, int) and not isinstance(v, bool) for v in values[1:]):
            return constant_value(getattr(template, name)(*values))
    except (IndexError, KeyError, ValueError, TypeError):
        return None
    return None


def percent(left: ScalarValue, right: Value) -> ScalarValue | None:
    """`"Conv%dd" % dims` (or `% (a, b)` given as known values) for known operands with plain `%s %d %r` codes."""
    if not (left.known and isinstance(left.constant, str)):
        return None
    items = getattr(right, "items", None)
    values = [_plain(v) for v in items] if isinstance(items, list) else [_plain(right)]
    if any(v is None for v in values):
        return None
    template = left.constant
    codes = template.replace("%%", "").split("%")[1:]
    if any(not code or code[0] not in "sdri" for code in codes):
        return None  # a width, a precision or another conversion: not folded
    try:
        return _short(template % (tuple(values) if isinstance(items, list) else values[0]))
    except (TypeError, ValueError):
        return None


def joined(node: ast.JoinedStr, parts: list[Value]) -> ScalarValue | None:
    """An f-string whose expressions are known constants, with no format spec."""
    out = []
    values = iter(parts)
    for piece in node.values:
        if isinstance(piece, ast.Constant):
            out.append(str(piece.value))
            continue
        if not isinstance(piece, ast.FormattedValue) or piece.format_spec is not None or piece.conversion not in (
                -1, ord("s"), ord("r")):
            return None
        value = _plain(next(values))
        if value is None:
            return None
        out.append(repr(value) if piece.conversion == ord("r") else str(value))
    return _short("".join(out))
