"""Whether a variable may be read after a statement: a syntactic, conservative liveness test.

Used for the fix facts: rebinding a name (`x = x.clone()`, `x = x + 1`) only changes what later reads of that
name see, so a rewrite that rebinds a name nothing reads again (a loop variable rebound by the next iteration,
a temporary) removes the write's effect instead of fixing it.

"May be read" errs towards yes: any read on some path counts, whatever branch it is in; only a plain
unconditional rebinding in the same block (`x = ...`, a `for x in` header, `del x`) ends the search; a name that
a nested function, a `global`/`nonlocal` declaration or (at module level) any function of the module refers to is
always read.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _binds(target: ast.AST, name: str) -> bool:
    """Whether an assignment target (`for` target, comprehension target) binds `name`."""
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) for n in ast.walk(target))


def _loads(node: ast.AST, name: str) -> bool:
    """Whether running `node` may read the current binding of `name` (nested functions and lambdas included: they
    may run later). The body of a `for name in ...` loop and a comprehension over `name` read a new binding."""
    if isinstance(node, (ast.For, ast.AsyncFor)) and _binds(node.target, name):
        return _loads(node.iter, name) or any(_loads(s, name) for s in node.orelse)
    if isinstance(node, _COMPREHENSIONS) and any(_binds(g.target, name) for g in node.generators):
        return _loads(node.generators[0].iter, name)  # the first iterable runs in the enclosing scope
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Store)
    return any(_loads(child, name) for child in ast.iter_child_nodes(node))


def _kills(stmt: ast.stmt, name: str) -> bool:
    """Whether running `stmt` always rebinds or deletes `name` (without reading it first)."""
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return stmt.value is not None and isinstance(stmt.target, ast.Name) and stmt.target.id == name
    if isinstance(stmt, ast.Delete):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return stmt.name == name
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return any((a.asname or a.name.split(".")[0]) == name for a in stmt.names)
    return False


def _path_to(body: list[ast.stmt], target: ast.stmt) -> Optional[list[tuple[list[ast.stmt], int, Optional[ast.stmt]]]]:
    """The blocks from `body` down to `target`: (block, index in it, the compound statement owning the block)."""
    for index, stmt in enumerate(body):
        if stmt is target:
            return [(body, index, None)]
        if isinstance(stmt, _SCOPES):
            continue
        for block in _blocks(stmt):
            inner = _path_to(block, target)
            if inner is not None:
                inner[0] = (inner[0][0], inner[0][1], stmt)
                return [(body, index, None)] + inner
    return None


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for attr in ("body", "orelse", "finalbody"):
        block = getattr(stmt, attr, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", ()) or ():
        yield handler.body
    for case in getattr(stmt, "cases", ()) or ():
        yield case.body


READ, DEAD, LEFT, ON = "read", "dead", "left", "on"


def _scan(stmts: list[ast.stmt], name: str) -> str:
    """Scan a run of statements in order: READ at the first read of the name; DEAD when it is rebound or the
    function is left (return/raise) first; LEFT when a break/continue leaves the block; ON when the run ends."""
    for stmt in stmts:
        if _loads(stmt, name):
            return READ
        if _kills(stmt, name) or isinstance(stmt, (ast.Return, ast.Raise)):
            return DEAD
        if isinstance(stmt, (ast.Break, ast.Continue)):
            return LEFT
    return ON


def _escapes(scope: ast.AST, name: str) -> bool:
    """Whether `name` is declared global or nonlocal in `scope`, or read by a function or lambda defined in it (a
    closure, or at module level a function reading the global, may run later). Kept on the scope's node: the
    analysis asks it for every write, and trees are never modified."""
    cache = getattr(scope, "_fixinplace_escapes", None)
    if cache is None:
        declared: set[str] = set()
        nested = []
        for node in ast.walk(scope):
            if isinstance(node, (ast.Global, ast.Nonlocal)):
                declared.update(node.names)
            elif node is not scope and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                nested.append(node)
        cache = (frozenset(declared), tuple(nested), {})
        scope._fixinplace_escapes = cache  # type: ignore[attr-defined]
    declared, nested, known = cache
    if name not in known:
        known[name] = name in declared or any(_loads(node, name) for node in nested)
    return known[name]


def read_after(scope: ast.AST, stmt: ast.stmt, name: str) -> bool:
    """Whether `name` may be read after `stmt` has run, within `scope` (a function, or the module)."""
    body = getattr(scope, "body", None)
    if not isinstance(body, list):
        return True
    if _escapes(scope, name):
        return True
    path = _path_to(body, stmt)
    if path is None:
        return True
    # From the innermost block outwards: the rest of each block; a loop may then run its body again.
    for depth in range(len(path) - 1, -1, -1):
        block, index, _ = path[depth]
        state = _scan(block[index + 1:], name)
        if state == READ:
            return True
        if state == DEAD:
            return False
        loop = path[depth - 1][0][path[depth - 1][1]] if depth > 0 else None
        if not (isinstance(loop, (ast.For, ast.AsyncFor, ast.While)) and block is loop.body):
            continue
        if isinstance(loop, ast.While) and _loads(loop.test, name):
            return True
        rebound = isinstance(loop, (ast.For, ast.AsyncFor)) and _binds(loop.target, name)
        if not rebound:
            # The next iteration runs the body from its start, up to the write itself.
            again = _scan(block[: index + 1], name)
            if again == READ:
                return True
        if loop.orelse and _scan(loop.orelse, name) == READ:
            return True
    return False
