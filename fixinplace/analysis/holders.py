"""Who else holds a tensor at the moment it is written in place: the facts that decide whether rebinding the
written place (`x = x + y`, `xs[i] = xs[i] + y`) keeps what every other reader sees.

Names are counted where the write is recorded (`Group.names`). This module adds the holders that are no names: a
list, tuple or dict the writing function still reads afterwards (`ys = [x]`, then `x += 1`: `ys[0]` saw the write),
an attribute of an instance the function holds (`self.cache = x`), and, for a write to a container's element
(`laterals[i - 1] += up`), the names and arguments that share the element's tensor.
"""

from __future__ import annotations

import ast
from functools import lru_cache

from fixinplace.analysis.frame import Frame
from fixinplace.analysis.liveness import read_after
from fixinplace.analysis.values import DictValue, Group, InstanceValue, SeqValue, TensorValue, Value

MAX_DEPTH = 3  # nesting of containers searched (a list of tuples of tensors)


def _holds(value: Value, group: Group) -> bool:
    return isinstance(value, TensorValue) and any(g is group for g, _ in value.all_groups())


def slots_holding(value: Value, group: Group, depth: int = 0) -> int:
    """How many places of a container (its nested containers too) hold a tensor of `group`."""
    if isinstance(value, SeqValue):
        items = value.items
    elif isinstance(value, DictValue):
        items = list(value.items.values())
    else:
        return 0
    count = 0
    for item in items:
        if _holds(item, group):
            count += 1
        elif depth < MAX_DEPTH:
            count += slots_holding(item, group, depth + 1)
    return count


@lru_cache(maxsize=1024)
def container_of(root: str) -> str:
    """For the root of a write to an element (`laterals[i - 1]`, `self.buf[0]`), the name or attribute chain
    holding the container (`laterals`, `self.buf`); "" for anything else. Parsed once per text: a write site runs
    many times."""
    try:
        written = ast.parse(root, mode="eval").body
    except SyntaxError:
        return ""
    if isinstance(written, ast.Subscript):
        node = written.value
        while isinstance(node, ast.Subscript):
            node = node.value
        if isinstance(node, (ast.Name, ast.Attribute)):
            return ast.unparse(node)
    return ""


def held_elsewhere(frame: Frame, value: TensorValue, container: str, root: str, scope: ast.AST,
                   stmt: ast.stmt | None) -> bool:
    """Whether a container or an instance attribute holds the written tensor besides the place written through:
    a list, tuple or dict bound to a name the function may read after the write, or an attribute of an instance
    it holds (other methods read attributes at any time). `container`: for an element write, the container
    written into, whose written slot does not count; `root`: the written place (`self.h` is not its own
    holder)."""
    group = value.group
    for name, held in frame.env.items():
        if isinstance(held, (SeqValue, DictValue)):
            count = slots_holding(held, group) - (1 if name == container else 0)
            if count > 0 and (stmt is None or read_after(scope, stmt, name)):
                return True
        elif isinstance(held, InstanceValue):
            for attr, member in list(held.attrs.items()):
                place = f"{name}.{attr}"
                if _holds(member, group):
                    if place != root:
                        return True
                elif isinstance(member, (SeqValue, DictValue)):
                    if slots_holding(member, group) - (1 if place == container else 0) > 0:
                        return True
    return False


def element_private(frame: Frame, value: TensorValue, container: str, scope: ast.AST, stmt: ast.stmt | None,
                    running: set[str]) -> bool:
    """Whether the tensor an element write writes is held by no one but the container, which is a local of the
    writing function: made in this run of the code (not an argument's, a parameter, a buffer), no view, no name
    of this function that reads it afterwards, and no name of a function still running (a caller). Rebinding
    the element then changes what no other reader sees."""
    if not container.isidentifier() or frame.env.get(container) is None or container in frame.param_values:
        return False
    group = value.group
    if group.origin != "fresh" or value.view or value.detached or value.maybe_groups:
        return False
    if any(_holds(passed, group) or slots_holding(passed, group) for passed in frame.param_values.values()):
        return False
    for function, name in group.names:
        if function == frame.function:
            if _holds(frame.env.get(name), group) and (stmt is None or read_after(scope, stmt, name)):
                return False
        elif function.rsplit(".", 1)[-1] in running:
            return False
    return True
