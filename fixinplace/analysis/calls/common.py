"""What several of the call-handling modules share: the shipped op table's classes, the literal-bool reader
`const_bool`, and the method and attribute names more than one of them looks up."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import Tri

try:  # the table is shipped data; the analysis degrades to "unknown op" without it
    from fixinplace.optable import NONE as NONE_LITERAL
    from fixinplace.optable import NOT_NONE
    from fixinplace.optable import ArgFact, OpTable
except ImportError:  # pragma: no cover - only while the table module is absent
    ArgFact = None  # type: ignore[assignment]
    OpTable = None  # type: ignore[assignment]
    NONE_LITERAL = None
    NOT_NONE = None

MAYBE_ALIAS_METHODS = {
    "to", "float", "double", "half", "bfloat16", "cuda", "cpu", "type", "contiguous", "type_as", "long", "int",
    "bool", "as_subclass", "pin_memory", "reshape", "reshape_as", "flatten",
}
VIEW_ATTRS = {"T", "mT", "H", "mH", "real", "imag"}


def const_bool(node: ast.AST | None) -> Tri:
    """The value of a literal True/False, None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None
