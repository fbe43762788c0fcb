"""Which code of a module runs only in eval mode, read from the source.

`if self.training:` splits a forward into what training runs and what only evaluation runs (`model.eval()`):
a decoder's greedy `forward_test`, a detector's `forward_inference`. A backward the analysis assumes because a
forward is trained never goes through the eval arm, and a method that every call through `self` in its class
hierarchy makes from an eval arm, or with grad mode off, is never trained either, wherever those calls are (a
base class in another file of the project calls the subclass's override).
"""

from __future__ import annotations

import ast
from enum import Enum

# The calls of `torch` that turn grad mode off for a `with` block, by their last name.
_NO_GRAD_CONTEXTS = frozenset({"no_grad", "inference_mode"})


class CallMode(Enum):
    """How one call runs, as its source shows."""

    EVAL = "eval"  # on an arm only eval mode takes
    NO_GRAD = "no_grad"  # inside `with torch.no_grad()` or a function decorated with it
    ANY = "any"  # nothing known: training may run it


def _is_training_flag(node: ast.AST) -> bool:
    """`self.training` or `self.<submodule>.training`: a module's own train/eval flag."""
    if not (isinstance(node, ast.Attribute) and node.attr == "training"):
        return False
    base = node.value
    while isinstance(base, ast.Attribute):
        base = base.value
    return isinstance(base, ast.Name) and base.id == "self"


def eval_arm(test: ast.AST) -> int | None:
    """For the test of an `if`: the arm (0: body, 1: else) that runs only in eval mode, when the test is exactly
    the module's training flag or its negation; None for any other test (`self.training and x` decides nothing)."""
    if _is_training_flag(test):
        return 1
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _is_training_flag(test.operand):
        return 0
    if (isinstance(test, ast.Compare) and len(test.ops) == 1 and _is_training_flag(test.left)
            and isinstance(test.ops[0], (ast.Is, ast.Eq)) and isinstance(test.comparators[0], ast.Constant)
            and isinstance(test.comparators[0].value, bool)):
        return 1 if test.comparators[0].value else 0
    return None


def context_name(node: ast.AST) -> str:
    """The last name of a context manager or decorator, called or not (`torch.no_grad()`: "no_grad")."""
    if isinstance(node, ast.Call):
        node = node.func
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def _turns_grad_off(node: ast.AST) -> bool:
    """`torch.no_grad()`, `torch.inference_mode()` (as a context or decorator), by their last name."""
    return context_name(node) in _NO_GRAD_CONTEXTS


def _leaves(body: list[ast.stmt]) -> bool:
    """Whether a block always leaves its function (it ends in `return` or `raise`)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Raise))


def self_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, list[CallMode]]:
    """Every call `self.name(...)` in a method's body (nested definitions aside), by name, with how it runs.
    Kept on the node: a definition's text does not change during a run."""
    found = function.__dict__.get("_fip_self_calls")
    if found is not None:
        return found
    out: dict[str, list[CallMode]] = {}
    start = CallMode.NO_GRAD if any(_turns_grad_off(d) for d in function.decorator_list) else CallMode.ANY

    def calls_in(node: ast.AST, mode: CallMode) -> None:
        for child in ast.walk(node):
            if (isinstance(child, ast.Call) and isinstance(child.func, ast.Attribute)
                    and isinstance(child.func.value, ast.Name) and child.func.value.id == "self"):
                out.setdefault(child.func.attr, []).append(mode)

    def block(body: list[ast.stmt], mode: CallMode) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if isinstance(stmt, ast.If):
                calls_in(stmt.test, mode)
                arm = eval_arm(stmt.test)
                arms = [stmt.body, stmt.orelse]
                for index, part in enumerate(arms):
                    block(part, CallMode.EVAL if arm == index and mode is CallMode.ANY else mode)
                if arm is not None and mode is CallMode.ANY and _leaves(arms[1 - arm]):
                    mode = CallMode.EVAL  # `if self.training: return ...`: what follows runs in eval mode only
                continue
            if isinstance(stmt, (ast.With, ast.AsyncWith)):
                off = any(_turns_grad_off(item.context_expr) for item in stmt.items)
                for item in stmt.items:
                    calls_in(item.context_expr, mode)
                block(stmt.body, CallMode.NO_GRAD if off else mode)
                continue
            inner = [getattr(stmt, name) for name in ("body", "orelse", "finalbody") if hasattr(stmt, name)]
            if inner:  # for, while, try: their headers, then their blocks
                for name, value in ast.iter_fields(stmt):
                    if name not in ("body", "orelse", "finalbody", "handlers"):
                        if isinstance(value, ast.AST):
                            calls_in(value, mode)
                for part in inner:
                    block(part, mode)
                for handler in getattr(stmt, "handlers", ()):
                    block(handler.body, mode)
                continue
            calls_in(stmt, mode)

    block(function.body, start)
    function._fip_self_calls = out  # type: ignore[attr-defined]
    return out
