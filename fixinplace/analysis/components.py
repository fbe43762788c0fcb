"""A module's independent parts: top-level statements that share no module-level name, analysed apart.

Two top-level statements interact in the analysis only through a module-level name both mention (a function and
its caller, a class and the code that builds it, a global and its readers) or through a method name one defines
and the other reads as an attribute. Statements are grouped by those links (union-find); each group, with the
imports and the free-standing statements it needs in their original order, is a *component*, analysed as a
module of its own with the file's text and line numbers, so its diagnostics are those the whole file gives for
its lines.

What that buys: a component whose text has no in-place write form is not analysed at all (the pre-filter, per
part); and the diagnostics of a component are memoised by its text and position, so re-analysing a file where
one function changed (an editor's keystroke, a candidate fix being checked) runs that function's component only.

The links are conservative: a name bound at module level links every statement that mentions it (loads and
stores, in nested functions too unless they bind it locally); names bound only by imports, and builtins, link
nothing (imports are copied into each component that mentions their names, as are statements that mention no
linking name, e.g. `torch.manual_seed(0)`). A star import, a `global` statement and `globals()`, `exec`, `eval` calls
make the file one component.
"""

from __future__ import annotations

import ast
import bisect
import os
import re
import symtable
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from fixinplace.diagnostics import Diagnostic

# Ways of reaching module-level names that the links cannot follow (a loose match only costs the split).
_WHOLE_FILE = re.compile(r"^[ \t]*global[ \t]+\w|import[ \t(]*\*|(?<![\w.])(?:globals|exec|eval|vars|locals|__import__)\s*\(",
                         re.MULTILINE)
_ATTRIBUTE = re.compile(r"\.\s*([A-Za-z_]\w*)")

# Memoised diagnostics per component (the analysis of a component is a function of its statements' text and
# position, the file's path and the project files it may load).
MEMO_SIZE = 4096
_memo: OrderedDict[tuple, tuple[Diagnostic, ...]] = OrderedDict()
_memo_lock = threading.Lock()


@dataclass(frozen=True)
class Component:
    """Top-level statements analysed together, in source order, and the part of the text they span."""

    statements: tuple[ast.stmt, ...]
    key: tuple  # (first line, text) of each statement: equal keys mean equal statements at equal positions
    text: str


def memo_clear() -> None:
    """Forget every memoised component analysis."""
    with _memo_lock:
        _memo.clear()


def _outer_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    """Names a definition evaluates where it stands: decorators, defaults, annotations, bases and keywords."""
    parts: list[ast.AST] = list(node.decorator_list)
    if isinstance(node, ast.ClassDef):
        parts += [*node.bases, *node.keywords]
    else:
        args = node.args
        parts += [d for d in [*args.defaults, *args.kw_defaults] if d is not None]
        parts += [a.annotation for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
                  if a is not None and a.annotation is not None]
        if node.returns is not None:
            parts.append(node.returns)
    return {n.id for part in parts for n in ast.walk(part) if isinstance(n, ast.Name)}


def _global_names(table: symtable.SymbolTable) -> set[str]:
    """The module-level names a scope (and the scopes inside it) may read or write."""
    out = set()
    is_class = table.get_type() == "class"
    for symbol in table.get_symbols():
        if symbol.is_global() or symbol.is_declared_global() or (is_class and not symbol.is_assigned()
                                                                  and not symbol.is_imported()):
            out.add(symbol.get_name())
    for child in table.get_children():
        out |= _global_names(child)
    return out


def _defined_callables(stmt: ast.stmt) -> set[str]:
    """Names of the functions and methods a top-level statement defines (a class's methods, nested classes')."""
    out = set()
    stack = [stmt]
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(item.name)
        elif isinstance(item, ast.ClassDef):
            stack.extend(item.body)
    return out


def _imported_names(stmt: ast.Import | ast.ImportFrom) -> set[str]:
    return {(alias.asname or alias.name).split(".")[0] for alias in stmt.names}


def split(tree: ast.Module, source: str, source_lines: Sequence[str]) -> list[Component]:
    """The file's components, each with its statements in source order (imports and free-standing statements
    copied into every component that needs them)."""
    body = tree.body
    firsts = [_first_line(stmt) for stmt in body]
    texts = [_text(stmt, first, source_lines) for stmt, first in zip(body, firsts)]

    def component(indices: Sequence[int]) -> Component:
        return Component(statements=tuple(body[i] for i in indices),
                         key=tuple((firsts[i], texts[i]) for i in indices), text="".join(texts[i] for i in indices))

    whole = [component(range(len(body)))]
    if len(body) < 2 or _WHOLE_FILE.search(source) or os.environ.get("FIXINPLACE_NO_SPLIT", "") not in ("", "0"):
        return whole
    names: list[_Names] = []
    for stmt, first, text in zip(body, firsts, texts):
        found = _names_of(stmt, text, lambda: "\n".join(source_lines[first - 1:stmt.end_lineno or stmt.lineno]))
        if found is None:
            return whole
        names.append(found)
    mentions = [n.mentions for n in names]
    callables = [n.callables for n in names]
    bound: set[str] = set().union(*(n.bound for n in names))  # names a statement other than an import binds
    # Method and function names link a definition to the attributes read elsewhere under that name (dunders
    # aside: every class reads `super().__init__`).
    linking_attrs = {name for names in callables for name in names if not name.startswith("__")}
    links: list[set[str]] = []
    for index, stmt in enumerate(body):
        own = mentions[index] & bound
        if not isinstance(stmt, (ast.Import, ast.ImportFrom)) and linking_attrs:
            own |= {"." + name for name in (names[index].attributes | callables[index]) & linking_attrs}
        links.append(own)
    parent = list(range(len(body)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    owner: dict[str, int] = {}
    for index, names in enumerate(links):
        for name in names:
            if name in owner:
                a, b = find(owner[name]), find(index)
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                owner[name] = index
    groups: dict[int, list[int]] = {}
    shared: list[int] = []  # imports and free-standing statements, copied where needed
    for index in range(len(body)):
        if not links[index]:
            shared.append(index)
        else:
            groups.setdefault(find(index), []).append(index)
    if len(groups) < 2:
        return whole
    imports = {i for i in shared if isinstance(body[i], (ast.Import, ast.ImportFrom))}
    free_standing = [i for i in shared if i not in imports]
    out = []
    for members in groups.values():
        needed = set().union(*(mentions[i] for i in [*members, *free_standing]))
        extra = [i for i in shared if i not in imports or mentions[i] & needed]
        out.append(component(sorted([*members, *extra])))
    return out


@dataclass(frozen=True)
class _Names:
    """What one top-level statement says of module-level names."""

    mentions: frozenset[str]  # the module-level names it may read or write
    bound: frozenset[str]  # those it binds (other than by a top-level import)
    callables: frozenset[str]  # the functions and methods it defines
    attributes: frozenset[str]  # the names it reads as attributes (`x.name`)


# (kind, text, first and last column, lines) of a statement -> its names: they depend on its text alone (two
# statements on one line share the line's text, not their columns).
NAMES_SIZE = 16384
_names_memo: OrderedDict[tuple, _Names] = OrderedDict()


def _names_of(stmt: ast.stmt, text: str, code: Callable[[], str]) -> _Names | None:
    """The names of one top-level statement whose text (its whole lines, as `split` joins them) is `text`
    (memoised); `code()`: those lines as Python reads them. None when its scopes cannot be read (the whole file is
    then one component)."""
    key = (type(stmt).__name__, text, stmt.col_offset, stmt.end_col_offset, (stmt.end_lineno or 0) - stmt.lineno)
    with _memo_lock:
        found = _names_memo.get(key)
        if found is not None:
            _names_memo.move_to_end(key)
            return found
    bound: set[str] = set()
    if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        mentions = {stmt.name} | _outer_names(stmt)
        bound.add(stmt.name)
        try:  # the scopes it opens (its own, lambdas in its decorators and defaults), read alone: the same symbols
            table = symtable.symtable(code(), "<statement>", "exec")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        for scope in table.get_children():
            mentions |= _global_names(scope)
    elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
        mentions = _imported_names(stmt)
    else:
        mentions = set()
        for node in ast.walk(stmt):  # (targets inside lambdas and comprehensions count too: more links)
            if isinstance(node, ast.Name):
                mentions.add(node.id)
                if not isinstance(node.ctx, ast.Load):
                    bound.add(node.id)
            elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
                mentions.add(node.name)
                bound.add(node.name)
            elif isinstance(node, ast.MatchMapping) and node.rest:
                mentions.add(node.rest)
                bound.add(node.rest)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                mentions.add(node.name)  # a definition inside `if`/`try` at module level
                bound.add(node.name)
            elif isinstance(node, ast.alias):  # an import inside `try`/`if`: a binding like any other
                name = (node.asname or node.name).split(".")[0]
                mentions.add(name)
                bound.add(name)
    attributes = frozenset(_ATTRIBUTE.findall(text))
    found = _Names(frozenset(mentions), frozenset(bound), frozenset(_defined_callables(stmt)), attributes)
    with _memo_lock:
        _names_memo[key] = found
        if len(_names_memo) > NAMES_SIZE:
            _names_memo.popitem(last=False)
    return found


def _first_line(stmt: ast.stmt) -> int:
    return min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", ()))])


def _text(stmt: ast.stmt, first: int, source_lines: Sequence[str]) -> str:
    return "".join(source_lines[first - 1:stmt.end_lineno or stmt.lineno])


def analyse_components(tree: ast.Module, source: str, path: str, source_lines: Sequence[str],
                       analyse: Callable[[ast.Module], Iterable[Diagnostic]],
                       worth_analysing: Callable[[Component], bool], context: tuple = ()) -> list[Diagnostic]:
    """Every component's diagnostics: memoised ones by (path, context, component key), the others by
    `analyse(sub_module)` for components `worth_analysing` accepts (the others have none). `context` stands for
    what else the analysis reads (the project files it may load)."""
    parts = split(tree, source, source_lines)
    out: list[Diagnostic] = []
    use_memo = os.environ.get("FIXINPLACE_NO_MEMO", "") in ("", "0")
    for part in parts:
        memo_key = (path, context, part.key)
        found = _memo_get(memo_key) if use_memo else None
        if found is None:
            if not worth_analysing(part):
                found = ()
            else:
                module = tree if len(parts) == 1 else ast.Module(body=list(part.statements), type_ignores=[])
                found = tuple(analyse(module))
            if use_memo:
                _memo_put(memo_key, found)
        out.extend(found)
    return out


def _memo_get(key: tuple) -> tuple[Diagnostic, ...] | None:
    with _memo_lock:  # the language server analyses from more than one thread
        found = _memo.get(key)
        if found is not None:
            _memo.move_to_end(key)
        return found


def _memo_put(key: tuple, found: tuple[Diagnostic, ...]) -> None:
    with _memo_lock:
        _memo[key] = found
        if len(_memo) > MEMO_SIZE:
            _memo.popitem(last=False)
