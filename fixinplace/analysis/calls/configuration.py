"""Command-line configuration: `argparse`.

`argparse.ArgumentParser()` collects what each `add_argument` declares: its destination and the value it defaults
to (`action="store_true"`: False, `default=0.1`, `type=int`: a number). `parse_args()` reads the command line, so
what it returns holds values the analysis does not know, but of known kinds: Python numbers, bools and strings,
never tensors (a Python number multiplying a tensor saves nothing). `parse_args([])` reads no command line: its
values are the defaults, known, and decide branches (`if args.freeze:`), as in notebooks and tests.
"""

from __future__ import annotations

import ast

from fixinplace.analysis.values import SCALAR, ScalarValue, SeqValue, Value, constant_value

from fixinplace.analysis.frame import Frame

PARSERS = frozenset({"argparse.ArgumentParser"})


class ArgParserValue(Value):
    """An `argparse.ArgumentParser` (or one of its argument groups): the default of each destination."""

    def __init__(self, defaults: dict[str, ScalarValue] | None = None) -> None:
        self.defaults: dict[str, ScalarValue] = {} if defaults is None else defaults


class ArgNamespaceValue(Value):
    """What `parse_args()` returns: each destination's value (known only when no command line was read)."""

    def __init__(self, values: dict[str, ScalarValue]) -> None:
        self.values = values

    def get(self, name: str) -> ScalarValue:
        """`args.name`: a Python value (never a tensor), known when the parser's default is the value."""
        return self.values.get(name, ScalarValue())


def _declared(node: ast.Call) -> tuple[str, ScalarValue] | None:
    """The destination and default of one `add_argument(...)` call, from its literals."""
    names = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
    if not names:
        return None
    keywords = {kw.arg: kw.value for kw in node.keywords if kw.arg}
    dest_node = keywords.get("dest")
    if isinstance(dest_node, ast.Constant) and isinstance(dest_node.value, str):
        dest = dest_node.value
    else:
        long = next((n for n in names if n.startswith("--")), None)
        dest = (long or names[0]).lstrip("-").replace("-", "_")
    action = keywords.get("action")
    action = action.value if isinstance(action, ast.Constant) else None
    default = keywords.get("default")
    if default is not None:
        try:
            value = ast.literal_eval(default)
        except (ValueError, SyntaxError, TypeError):
            return dest, ScalarValue()
        if isinstance(value, (str, int, float, bool)) or value is None:
            kind_of = keywords.get("type")
            if isinstance(value, str) and isinstance(kind_of, ast.Name) and kind_of.id in ("int", "float"):
                return dest, ScalarValue(kind="number")  # argparse applies `type` to a string default
            return dest, constant_value(value)
        return dest, ScalarValue()
    if action == "store_true":
        return dest, constant_value(False)
    if action == "store_false":
        return dest, constant_value(True)
    return dest, constant_value(None) if not names[0].isidentifier() else ScalarValue()


class ConfigurationMixin:
    """`argparse` parsers, their arguments and what `parse_args()` returns."""

    def parser_method(self, parser: ArgParserValue, name: str, args: list, kwargs: dict, node: ast.Call,
                      frame: Frame) -> Value:
        """`add_argument`, `add_argument_group`, `set_defaults`, `parse_args`, `parse_known_args`."""
        if name == "add_argument":
            declared = _declared(node)
            if declared is not None:
                parser.defaults[declared[0]] = declared[1]
            return SCALAR
        if name in ("add_argument_group", "add_mutually_exclusive_group"):
            return parser  # its arguments are the parser's
        if name == "set_defaults":
            for key, value in kwargs.items():
                parser.defaults[key] = value if isinstance(value, ScalarValue) else ScalarValue()
            return SCALAR
        if name in ("parse_args", "parse_known_args", "parse_intermixed_args"):
            argv = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "args"), None)
            if isinstance(argv, (ast.List, ast.Tuple)) and not argv.elts:
                values = dict(parser.defaults)  # no command line read: every value is its default
            else:
                values = {key: ScalarValue(kind=value.kind) for key, value in parser.defaults.items()}
            namespace = ArgNamespaceValue(values)
            return SeqValue([namespace, ScalarValue()]) if name == "parse_known_args" else namespace
        return SCALAR
