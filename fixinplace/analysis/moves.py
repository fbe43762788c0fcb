"""Where a statement that breaks a backward could run instead: after that backward.

A weight clip, a max-norm renorm, an EMA or an optimizer step placed between a forward and the backward that needs
the old values is an update that belongs after the backward. When the statement holding the write and the
backward stand in the same block, nothing between them mentions what that statement mentions, and the statement
cannot leave the block (no return, break, continue or yield), it can be moved after the backward and after the
optimizer steps that directly follow it (a constraint on the weights applies to the updated weights).

For an optimizer step before a second backward (the GAN and actor-critic pattern), the step moves after that
backward, which is then restricted (`inputs=`) to the parameters it is meant to update: every leaf its graph
reaches other than the parameters the moved step updates, when a module or optimizer in scope (or an attribute
of an object in scope) holds exactly those. A backward that reaches none of the stepped parameters needs no
restriction.

The other way round: the forward statement that made the save can run again where the backward needs it. Before
a loop whose iterations run the backward and then the write (a sample generated once, then several generator
steps), it moves to the start of the loop body, so that each iteration saves what it needs anew; before a write
that a later backward of its graph follows in the same block (a second loss after an optimizer step), it runs
again right after the write.
"""

from __future__ import annotations

import ast
from typing import Callable

from fixinplace.analysis.frame import Evaluator, Frame
from fixinplace.analysis.values import (
    ClassValue,
    FunctionValue,
    InstanceValue,
    LeafUse,
    ModuleValue,
    OptimizerValue,
    QualName,
    Save,
    TensorValue,
    Value,
    Write,
)
from fixinplace.facts import Span, WriteForm


_LEAVES = (ast.Return, ast.Break, ast.Continue, ast.Yield, ast.YieldFrom, ast.Await)
#: The key of a statement of the file the facts' spans are in (a project module's, when the backward runs there):
#: the caller keeps the facts only where the fix edits that file.
HOME = "home"


def move_facts(interp: Evaluator, frame: Frame, write: Write, tensor: TensorValue,
               parameters_of: Callable[[Value], list[TensorValue]]) -> dict:
    """`{"move", "after", "backward", "inputs"}` for moving the statement of `write` after the backward now being
    run (on `tensor`), or {} when it cannot move (`parameters_of` lists the parameters a module holds)."""
    where = _backward_place(interp)
    if where is None:
        return {}
    block, b_index = where
    backward = block[b_index]
    m_index = _write_index(interp, write, block, before=b_index)
    moved = block[m_index] if m_index is not None else None
    if moved is None or any(isinstance(n, _LEAVES) for n in ast.walk(moved)):
        return {}
    names = _names(moved, frame)
    if any(_mentions(stmt, names) for stmt in block[m_index + 1:b_index]):
        return {}
    end = b_index
    while end + 1 < len(block) and _is_step(block[end + 1]):
        if write.site.form is WriteForm.OPTIMIZER and _call_name(block[end + 1]) == "update":
            break  # a moved `scaler.step(opt)` stays before `scaler.update()`, which rescales for the next steps
        end += 1
    # A statement that binds what the backward or the steps read (`loss = criterion(model(x), y)`, whose forward
    # holds the write) builds the graph the backward needs: it cannot run after it.
    bound = {n.id for n in ast.walk(moved) if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del))}
    if any(_mentions(stmt, bound) for stmt in block[b_index:end + 1]):
        return {}
    facts = {"move": _span(moved), "after": _span(block[end]), "backward": _span(backward), HOME: backward}
    if write.site.form is WriteForm.OPTIMIZER:
        inputs = _restriction(parameters_of, frame, write, tensor, backward)
        if inputs is None:
            return {}
        facts["inputs"] = inputs
    return facts


def _backward_place(interp: Evaluator) -> tuple[list[ast.stmt], int] | None:
    """The block the backward now being run stands in, and its index there."""
    backward = interp.current_statement
    return interp.block_of(backward) if backward is not None else None


def _write_index(interp: Evaluator, write: Write, block: list[ast.stmt], before: int | None = None) -> int | None:
    """The index in `block` of the statement there that runs `write` (the outermost one: its statements go
    outermost first), only among those before index `before` when given."""
    for stmt in write.stmts:
        place = interp.block_of(stmt)
        if place is not None and place[0] is block and (before is None or place[1] < before):
            return place[1]
    return None


def recompute_facts(interp: Evaluator, write: Write, save: Save) -> dict:
    """Where the forward statement that made `save` (the op itself, or the call of this file that ran it: a
    model's forward in another file) can run again so that the backward now being run gets a graph of the updated
    tensors: `{"recompute", "loop"}` to move it into the start of the loop that holds that backward and `write`
    when it stands before that loop, `{"recompute", "recompute_after"}` to run it again right after the statement
    of `write`; {} when neither applies."""
    loop = next((s for s in reversed(interp.statements) if isinstance(s, (ast.For, ast.While))), None)
    if loop is None or not any(s is loop for s in write.stmts):
        return _recompute_after(interp, write, save)
    where = interp.block_of(loop)
    if where is None:
        return {}
    block, at = where
    forward = _forward(block[:at], save)
    if forward is None:
        return _recompute_after(interp, write, save)  # the forward runs in the loop too (a GAN's iteration)
    bound = _bound_names(forward)
    scope = interp.current_scope
    if any(isinstance(n, ast.Name) and n.id in bound and not _within(n, forward) and not _within(n, loop)
           for n in ast.walk(scope)):
        return {}
    read = {n.id for n in ast.walk(forward.value) if isinstance(n, ast.Name)}
    if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in read for n in ast.walk(loop)):
        return {}
    return {"recompute": _span(forward), "loop": _span(loop), HOME: loop}


def _recompute_after(interp: Evaluator, write: Write, save: Save) -> dict:
    """`{"recompute", "recompute_after"}` when the statement that made `save` (an assignment to names) stands in
    the block of the backward now being run, before the statement of `write`, which stands there before the
    backward; nothing from the forward to the backward rebinds what the forward reads or binds."""
    where = _backward_place(interp)
    if where is None:
        return {}
    block, b_index = where
    w_index = _write_index(interp, write, block)
    if w_index is None or w_index >= b_index:
        return {}
    forward = _forward(block[:w_index], save)
    if forward is None:
        return {}
    f_index = block.index(forward)
    names = _bound_names(forward) | {n.id for n in ast.walk(forward.value) if isinstance(n, ast.Name)}
    if any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id in names
           for stmt in block[f_index + 1:b_index + 1] for n in ast.walk(stmt)):
        return {}
    facts = {"recompute": _span(forward), "recompute_after": _span(block[w_index]), HOME: forward}
    moved = _movable_after(block[f_index:w_index + 1])
    if moved:
        facts["recompute_moved"] = tuple(_span(stmt) for stmt in moved)
    return facts


def carry_facts(interp: Evaluator, frame: Frame, write: Write, save: Save) -> dict:
    """Where a loop carries the graph of one iteration into the next (a recurrent state: `out, h = rnn(x, h)`, or
    `h = h_next` after the step), when the backward now being run reaches, through it, a save of the previous
    iteration that the write at its end broke: `{"carry", "carried", "carried_from"}` to cut the graph there with
    `.detach()` (truncated backpropagation through time): before the forward (`h = h.detach()`) when the forward
    itself rebinds the carried name, else at the statement that hands it over (`h = h_next.detach()`). {} when the
    backward, the forward and the write do not stand in one loop body in the order forward, backward, write, or the
    carried value is not surely one tensor."""
    where = _backward_place(interp)
    if where is None:
        return {}
    block, b_index = where
    loop = next((s for s in interp.statements if isinstance(s, (ast.For, ast.While)) and s.body is block), None)
    w_index = _write_index(interp, write, block)
    if loop is None or w_index is None or w_index <= b_index:
        return {}
    forward = _forward(block[:b_index], save)
    if forward is None:
        return {}
    f_index = block.index(forward)
    bound = _bound_names(forward)
    for name in dict.fromkeys(n.id for n in ast.walk(forward.value) if isinstance(n, ast.Name)):
        if not _one_tensor(frame.env.get(name)):
            continue
        if name in bound:  # `out, h = rnn(x, h)`
            return {"carry": _span(forward), "carried": name, "carried_from": "", HOME: forward}
        handover = next((stmt for stmt in block[f_index + 1:] if isinstance(stmt, ast.Assign)
                         and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                         and stmt.targets[0].id == name and isinstance(stmt.value, ast.Name)
                         and stmt.value.id in bound), None)
        if handover is not None:  # `h = h_next`
            return {"carry": _span(handover), "carried": name, "carried_from": handover.value.id, HOME: handover}
    return {}


def _one_tensor(value: object) -> bool:
    """Whether a value is surely one tensor (`.detach()` on a tuple of states would fail)."""
    return isinstance(value, TensorValue) and value.is_tensor is True and value.single and not value.maybe_groups


def _movable_after(statements: list[ast.stmt]) -> list[ast.stmt]:
    """The first statement (a forward) and those of the rest but the last (the write's) that read what it binds,
    directly or through each other, when they can all run after the last instead: each is an assignment (a call
    made for its effect, a backward say, may be what the write needs) that cannot leave the block, nothing left
    behind reads what they bind (a name, or an attribute by its name), and nothing left behind binds what they
    read. Empty when they cannot."""
    def bound(stmt: ast.stmt) -> set[str]:
        return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(stmt)
                if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, (ast.Store, ast.Del))}

    def read(stmt: ast.stmt) -> set[str]:
        return {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(stmt)
                if isinstance(n, (ast.Name, ast.Attribute)) and isinstance(n.ctx, ast.Load)}

    forward, *between, write = statements
    moved, kept = [forward], []
    names = bound(forward)
    for stmt in between:
        if read(stmt) & names:
            moved.append(stmt)
            names |= bound(stmt)
        else:
            kept.append(stmt)
    if any(not isinstance(stmt, (ast.Assign, ast.AnnAssign)) or
           any(isinstance(n, _LEAVES) for n in ast.walk(stmt)) for stmt in moved):
        return []
    reads = set().union(*(read(stmt) for stmt in moved))
    if any(read(stmt) & names or bound(stmt) & reads for stmt in [*kept, write]):
        return []
    return moved


def _names_only(target: ast.expr) -> bool:
    """A target that binds names only: `out`, or `codes, feats` (an encoder's outputs)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_names_only(t) for t in target.elts)
    return isinstance(target, ast.Name)


def _bound_names(forward: ast.Assign) -> set[str]:
    """The names an assignment of names only binds."""
    return {n.id for t in forward.targets for n in ast.walk(t) if isinstance(n, ast.Name)}


def _forward(statements: list, save: Save) -> ast.Assign | None:
    """The statement among `statements` that made `save` (ran the op, or the call that ran it), when it is an
    assignment to names that cannot leave its block (no return, break, yield): one that can run again elsewhere."""
    running = {id(s) for s in save.stmts}
    forward = next((s for s in statements if id(s) in running), None)
    if not isinstance(forward, ast.Assign) or not all(_names_only(t) for t in forward.targets) \
            or any(isinstance(n, _LEAVES) for n in ast.walk(forward)):
        return None
    return forward


def _within(node: ast.AST, stmt: ast.stmt) -> bool:
    """Whether a node stands inside a statement's lines."""
    return stmt.lineno <= getattr(node, "lineno", 0) <= (stmt.end_lineno or stmt.lineno)


def _span(stmt: ast.stmt) -> Span:
    return Span(stmt.lineno, stmt.col_offset + 1, stmt.end_lineno or stmt.lineno, (stmt.end_col_offset or 0) + 1)


def _names(stmt: ast.stmt, frame: Frame) -> set[str]:
    """The names a statement mentions, other than names of code (functions, classes, modules such as `torch`)."""
    out = set()
    for node in ast.walk(stmt):
        if isinstance(node, ast.Name):
            value = frame.lookup(node.id)
            if not isinstance(value, (FunctionValue, ClassValue, QualName)):
                out.add(node.id)
    return out


def _mentions(stmt: ast.stmt, names: set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(stmt))


def _is_step(stmt: ast.stmt) -> bool:
    """`opt.step()`, `scaler.step(opt)`, `scheduler.step()`, `scaler.update()`: an update after the backward."""
    return _call_name(stmt) in ("step", "update")


def _call_name(stmt: ast.stmt) -> str | None:
    """The method name of a statement that is one method call (`opt.step()`: "step")."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
        return stmt.value.func.attr
    return None


def _restriction(parameters_of: Callable[[Value], list[TensorValue]], frame: Frame, write: Write, tensor: TensorValue,
                 backward: ast.stmt) -> str | None:
    """The `inputs=` expression restricting the backward to the leaves its graph reaches, minus the parameters the
    moved optimizer step updates: a module or optimizer in scope (or an attribute of an object in scope) with
    exactly those parameters; "" when the backward reaches none of the stepped parameters (nothing to restrict);
    None when it reaches them and no such expression exists (moved, the step would add that backward's gradients
    to its own)."""
    call = backward.value if isinstance(backward, ast.Expr) else None
    if not isinstance(call, ast.Call) or not (isinstance(call.func, ast.Attribute) and call.func.attr == "backward"):
        return None
    optimizer = write.site.optimizer
    if not isinstance(optimizer, OptimizerValue):
        return None
    stepped = {id(p.group) for p in optimizer.params}
    reached = {id(item.group): item.group for item in tensor.graph if isinstance(item, LeafUse)}
    remaining = {key for key in reached if key not in stepped}
    if len(remaining) == len(reached):
        return ""
    if any(kw.arg == "inputs" for kw in call.keywords):
        return None
    if not remaining or any(reached[k].origin != "param" for k in remaining):
        return None
    scopes = [frame.env] + ([frame.globals] if frame.globals is not frame.env else [])
    named = [(name, value) for scope in scopes for name, value in scope.items() if name.isidentifier()]
    named += [(f"{name}.{attr}", value) for name, holder in list(named) if isinstance(holder, InstanceValue)
              for attr, value in holder.attrs.items() if attr.isidentifier()]
    for name, value in named:
        if not (isinstance(value, ModuleValue) or isinstance(value, InstanceValue) and value.cls.is_module):
            continue  # only a module has `.parameters()` (a loss object holding a discriminator has not)
        if {id(p.group) for p in parameters_of(value)} == remaining:
            return f"list({name}.parameters())"
    for name, value in named:
        if isinstance(value, OptimizerValue) and value is not optimizer and \
                {id(p.group) for p in value.params} == remaining:
            return f'[p for group in {name}.param_groups for p in group["params"]]'
    return None


def block_index(tree: ast.AST) -> dict[int, tuple[list, int]]:
    """Every statement's block (the list it stands in) and its index there, by id."""
    index: dict[int, tuple[list, int]] = {}
    for node in ast.walk(tree):
        blocks = [getattr(node, attr, None) for attr in ("body", "orelse", "finalbody")]
        blocks += [h.body for h in getattr(node, "handlers", ()) or ()]
        blocks += [c.body for c in getattr(node, "cases", ()) or ()]
        for block in blocks:
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                for i, stmt in enumerate(block):
                    index[id(stmt)] = (block, i)
    return index
