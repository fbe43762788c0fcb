"""Whether a function's write to one of its arguments can be seen by its callers in the file.

A helper that writes its argument and returns it (`def normalize_(img, m, s): img.sub_(m).div_(s); return img`)
can be rewritten out of place (`img = img.sub(m).div(s)`) without anyone noticing when every call in the file uses
the returned value, and what it passes for that argument is a temporary (`normalize_(x * 2, ...)`), or a name
the call's statement rebinds to the result (`x = normalize_(x, ...)`), or a name nothing reads afterwards. A
function nothing in the file calls, one called through `*args`, or one whose name is rebound, may be called from
elsewhere: its writes stay visible.

Also what a function's own code shows about it (its nested definitions aside): what it returns, and whether it
runs the backward of a graph it builds.
"""

from __future__ import annotations

import ast
from typing import Optional

from fixinplace.analysis.liveness import read_after

def _enclosing(tree: ast.Module) -> dict[int, tuple[ast.AST, ast.stmt]]:
    """For every call node: (the function or module it runs in, the innermost statement holding it)."""
    out: dict[int, tuple[ast.AST, ast.stmt]] = {}

    def visit(node: ast.AST, scope: ast.AST, stmt: ast.stmt | None) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for part in [*child.decorator_list, *child.args.defaults, *child.args.kw_defaults]:
                    if part is not None:
                        visit(part, scope, stmt)
                visit_body(child, child.body)
            elif isinstance(child, ast.stmt):
                visit(child, scope, child)
            else:
                if isinstance(child, ast.Call) and stmt is not None:
                    out[id(child)] = (scope, stmt)
                visit(child, scope, stmt)

    def visit_body(scope: ast.AST, body: list[ast.stmt]) -> None:
        for stmt in body:
            visit(ast.Module(body=[stmt], type_ignores=[]), scope, None)

    visit_body(tree, tree.body)
    return out


class _NameUses:
    """Per name of a module: its loads, its stores and deletions, and the calls made through it by that name;
    and where each call runs. Built once per tree: every question about a function's callers reads it."""

    def __init__(self, tree: ast.Module) -> None:
        self.loads: dict[str, int] = {}
        self.rebound: set[str] = set()
        self.calls: dict[str, list[ast.Call]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    self.loads[node.id] = self.loads.get(node.id, 0) + 1
                else:
                    self.rebound.add(node.id)
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                self.calls.setdefault(node.func.id, []).append(node)
        self._where: dict[int, tuple[ast.AST, ast.stmt]] | None = None
        self._tree = tree

    @property
    def where(self) -> dict[int, tuple[ast.AST, ast.stmt]]:
        if self._where is None:
            self._where = _enclosing(self._tree)
        return self._where


def _name_uses(tree: ast.Module) -> _NameUses:
    """The tree's `_NameUses`, kept on the tree itself (it lives exactly as long as the tree)."""
    uses = tree.__dict__.get("_fip_name_uses")
    if uses is None:
        uses = tree._fip_name_uses = _NameUses(tree)  # type: ignore[attr-defined]
    return uses


def argument_is_private(tree: ast.Module, function: ast.AST, param: str) -> bool:
    """Whether no caller in the file can see a write that `function` makes to its parameter `param`."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function not in tree.body:
        return False  # methods, nested functions: called through names the file does not show
    params = [a.arg for a in [*function.args.posonlyargs, *function.args.args]]
    index: Optional[int] = params.index(param) if param in params else None
    uses = _name_uses(tree)
    if function.name in uses.rebound:
        return False  # rebound or deleted somewhere: other callables go by that name
    calls = uses.calls.get(function.name, [])
    if not calls or uses.loads.get(function.name, 0) != len(calls):
        return False  # not called here, or passed around as a value
    where = uses.where
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return False
        scope, stmt = where[id(call)]
        if isinstance(stmt, ast.Expr) and stmt.value is call:
            return False  # the result is dropped: the caller relies on the write
        passed = call.args[index] if index is not None and index < len(call.args) else next(
            (k.value for k in call.keywords if k.arg == param), None)
        if passed is None or _temporary(passed):
            continue
        if not isinstance(passed, ast.Name):
            return False  # an attribute, a subscript: other code reads it
        rebound = isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == passed.id
                                                       for t in stmt.targets)
        if not rebound and read_after(scope, stmt, passed.id):
            return False
    return True


def _temporary(node: ast.AST) -> bool:
    """An expression whose value nobody else holds: an operator's result. (Not a call's: a method may return a
    tensor it keeps, `torch.narrow` a view of its argument.)"""
    return isinstance(node, (ast.BinOp, ast.UnaryOp))


def returns_other_than(function: ast.AST, name: str) -> bool:
    """Whether `function` returns a value other than `name` itself or None (nested definitions aside)."""
    return any(isinstance(node, ast.Return) and node.value is not None
               and not (isinstance(node.value, ast.Name) and node.value.id == name)
               and not (isinstance(node.value, ast.Constant) and node.value.value is None)
               for node in own_nodes(function))


def own_nodes(fn: ast.AST):
    """The nodes of a function's body, without those of the functions, lambdas and classes defined in it."""
    stack = list(ast.iter_child_nodes(fn))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _root_name(node: ast.AST) -> str | None:
    """`loss` for `loss`, `out.loss`, `losses[0]`, `loss.mean()`."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            node = node.func.value
        else:
            return None


#: The root `_backward_root` gives a value a call of the function itself returns.
_CALLED = "<call>"


def _backward_root(node: ast.AST) -> str | None:
    """What a backward's tensor expression goes back to: `_root_name`, or `_CALLED` when the chain passes through
    a call that computes it here (`criterion(out, y)`, `model(x).sum()`, `F.mse_loss(pred, y)`: a plain call, or
    a call with arguments), not a method read off a value made elsewhere (`self.loss.mean()`)."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        elif isinstance(node, ast.Call) and (not isinstance(node.func, ast.Attribute) or node.args or node.keywords):
            return _CALLED
        elif isinstance(node, ast.Call):
            node = node.func.value
        else:
            return None


def runs_own_backward(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function calls `.backward()` (or `torch.autograd.grad` / `backward`) on a value it computes
    itself: such a function only works when grad mode is on while it runs."""
    assigned: set[str] = set()
    roots: list[str] = []
    for node in own_nodes(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            assigned.add(node.id)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr, owner = node.func.attr, node.func.value
            if attr == "backward" and not (isinstance(owner, ast.Attribute) and owner.attr == "autograd"):
                root = _backward_root(owner)  # loss.backward(), model(x).sum().backward()
            elif attr in ("grad", "backward") and node.args and isinstance(owner, (ast.Name, ast.Attribute)) \
                    and (getattr(owner, "id", None) == "autograd" or getattr(owner, "attr", None) == "autograd"):
                root = _backward_root(node.args[0])  # torch.autograd.grad(loss, ...)
            else:
                continue
            if root is not None:
                roots.append(root)
    return any(root in assigned or root == _CALLED for root in roots)
