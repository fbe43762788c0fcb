"""The planner: for one diagnostic, the ordered rewrites that could fix it, each safe or unsafe (as in Ruff).

Planning reads only the write's facts (`fixinplace.facts.WriteFacts`); whether a candidate really removes the hazard
is decided afterwards by applying it and analysing the result (`fixinplace.fix.checked`). The order is the order
of preference: the most readable exact rewrite first, clones as the fallback.

Applicability:
- `safe`: the rewrite keeps what the program computes wherever the original runs: the written tensor is a local
  name nothing else aliases (not an argument, attribute or global), and the new form has the same dtype, shape
  and gradient; or the rewrite keeps every alias's view of the write (a clone where the op saves).
- `unsafe`: the rewrite may drop a mutation someone else observes (a caller's tensor, an attribute, a view), or
  may change a dtype the analysis does not know, or changes gradients on purpose.

Never offered: a rebinding of a name nothing reads after the write (it would remove the write's effect, not
fix it), and any rewrite of a value the analysis does not know is a tensor. A write to an element of a container
(`d["a"].add_(1)`, `ys[-1][0] = 0.0`: root kind `element`) rebinds and clones nothing by name: the container is no
tensor (`d = d.clone()` would raise), and rebinding the element would hide the write from other holders of the
tensor; the clone where the op saves it keeps every holder's view and is offered instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from codemods import (
    AugAssignOutOfPlace,
    CloneAtSave,
    CloneBeforeWrite,
    DataOutOfPlace,
    DetachCarriedState,
    InPlaceFix,
    InplaceLiteralOff,
    MethodOutOfPlace,
    MoveAfterBackward,
    OutToAssignment,
    RecomputeForward,
    RemoveInplace,
    SetitemOutOfPlace,
    WrapNoGrad,
)
from fixinplace.diagnostics import Applicability, Diagnostic, Fix, Severity
from fixinplace.facts import GradMode, WriteFacts, WriteForm
from fixinplace.rules import RULES_BY_CODE

# In-place methods whose out-of-place form has the in-place result's dtype, shape and gradient when every other
# operand is a Python number (or a mask, for masked_fill_), or a tensor computed from the receiver alone.
EXACT_WITH_SCALARS = {
    "add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "masked_fill_", "pow_", "relu_",
    "sigmoid_", "tanh_", "exp_", "log_", "sqrt_", "neg_", "abs_", "sin_", "cos_", "square_", "reciprocal_",
    "rsqrt_", "floor_", "ceil_", "round_", "trunc_", "sign_", "hardtanh_", "leaky_relu_", "elu_", "lerp_",
    "clip_", "true_divide_", "remainder_", "fmod_", "floor_divide_",
}
# Augmented assignments (the in-place method each one is) rewritten `x = x <op> y`.
AUGASSIGN_EXACT = {"add_", "sub_", "mul_", "div_", "pow_", "remainder_", "floor_divide_"}


@dataclass(frozen=True)
class Candidate:
    """One rewrite to try: a codemod, where it anchors, and what it means."""

    codemod: type[InPlaceFix]
    anchor: tuple[tuple[str, object], ...]
    applicability: Applicability
    description: str  # `{new}` stands for the first line the rewrite writes

    @property
    def strategy(self) -> str:
        """The codemod's name."""
        return self.codemod.NAME

    def fix(self, new_line: str) -> Fix:
        """The public record of this candidate once checked (`new_line`: the first line it writes)."""
        return Fix(self.applicability, self.description.replace("{new}", new_line), self.strategy, candidate=self)


def _candidate(codemod: type[InPlaceFix], applicability: Applicability, description: str,
               **anchor: object) -> Candidate:
    return Candidate(codemod, tuple(sorted(anchor.items())), applicability, description)


def candidates(d: Diagnostic, style: str = "readable") -> list[Candidate]:
    """The rewrites to try for one diagnostic, in order of preference (empty: no fix is possible): those its rule
    asks for, except where the write's form decides (a write in another file, an optimizer step)."""
    f = d.facts
    rule = RULES_BY_CODE.get(d.code)
    if f is None or d.severity is Severity.INFO or rule is None or not rule.fixable:
        return []
    if f.form == WriteForm.CALL:  # the write is in another file, run by a call of this one: a save made here is cloned
        return _clone_at_save(f)
    if f.form == WriteForm.OPTIMIZER:
        return _move_after_backward(f) + _recompute_forward(f) + _detach_carried(f)
    return rule.candidates(f, Planner(style))


@dataclass(frozen=True)
class Planner:
    """The families of rewrites a rule can ask for (`fixinplace.rules.Repairs`), in the given style."""

    style: str = "readable"

    def saved(self, f: WriteFacts) -> list[Candidate]:
        return _saved(f, self.style)

    def leaf(self, f: WriteFacts) -> list[Candidate]:
        return _leaf(f)

    def move_after_backward(self, f: WriteFacts) -> list[Candidate]:
        return _move_after_backward(f)

    def recompute_forward(self, f: WriteFacts) -> list[Candidate]:
        return _recompute_forward(f)

    def detach_carried(self, f: WriteFacts) -> list[Candidate]:
        return _detach_carried(f)

    def silent(self, f: WriteFacts) -> list[Candidate]:
        return _silent(f, self.style)

    def array(self, f: WriteFacts) -> list[Candidate]:
        return _array(f, self.style)

    def without_inplace(self, f: WriteFacts) -> list[Candidate]:
        return _reused(f, self.style)


def remote_candidates(d: Diagnostic, style: str = "readable") -> list[Candidate]:
    """The rewrites to try at a write that a call of another file runs (`d` stands at the write, with its facts as
    the call's context shows them), in order of preference: those of `candidates`, where a write to an argument of
    the function that makes it is never safe. It reaches the caller's tensor, and whether the caller means to see
    it only the two files together tell: maintainers' fixes of such bugs drop the write (`token = token + pos` in a
    decoder's `forward` whose input another decoder reads), where a clone at the save would keep it."""
    out = candidates(d, style)
    if d.facts is not None and d.facts.root_kind == "argument":
        why = (f" (unsafe: `{d.facts.root}` is an argument, and whether its callers mean to see the write cannot be "
               "told)")
        out = [_unsafe(c, why) for c in out]
    return out


def _silent(f: WriteFacts, style: str) -> list[Candidate]:
    """A `.data` (or NumPy, or fused-optimizer) write the backward reads silently. The program runs: any fix
    changes the gradients it silently computes, so none is safe. The usual intent of a `.data` write is the op
    itself (differentiated), or an update that belongs after the backward."""
    return [_unsafe(c, " (unsafe: the program runs as it is, and the fix changes the gradients it computes)")
            for c in _data(f) + _saved(f, style)]


# ---------------------------------------------------------------------------------------------------------------
# Conditions


def _local(f: WriteFacts) -> bool:
    """A local name nothing else aliases, an argument no caller in the file can see written (every call uses
    the result and passes a temporary, or a name it rebinds or never reads again), or an element of a local
    container that alone holds a tensor made there: rebinding it changes what no other reader sees."""
    if f.root_kind == "argument":
        return f.argument_private and not f.through_view
    if f.root_kind == "element":
        return f.element_private and not f.aliased
    return f.root_kind == "local" and not f.aliased


def _why_unsafe(f: WriteFacts) -> str:
    """Why rebinding the written name may lose a mutation someone else observes."""
    if f.aliased and f.through_view:
        return f" (unsafe: `{f.root}` is a view of another tensor, which would no longer see the write)"
    if f.root_kind == "argument":
        return f" (unsafe: `{f.root}` is an argument; the caller would no longer see the write)"
    if f.aliased:
        return f" (unsafe: another name or view shares `{f.root}`, and it would no longer see the write)"
    if f.root_kind == "attribute":
        return f" (unsafe: `{f.root}` is an attribute; its other readers would no longer see the write)"
    if f.root_kind == "global":
        return f" (unsafe: `{f.root}` is a global; its other readers would no longer see the write)"
    if f.root_kind == "element":
        return f" (unsafe: `{f.root}` is an element of a container; other holders of the tensor would no longer see " \
               "the write)"
    return ""


def _unless_local(f: WriteFacts) -> str:
    """`_why_unsafe` for a fix that is safe exactly when the written name is `_local`: nothing when it is."""
    return "" if _local(f) else _why_unsafe(f)


def _rebindable(f: WriteFacts, dead_ok: bool = False) -> bool:
    """Whether rebinding the written name is a fix at all: the write goes to the name itself (not a view or an
    attribute of a Parameter), it is known to be a tensor, and something reads the name afterwards (`dead_ok`:
    or the write raises wherever it is reported, so that dropping its effect drops nothing that ever happened)."""
    if f.root_kind == "element":  # `laterals[i - 1] += up`: the container holds the new tensor, and is read on
        return f.target == f.root and f.target_is_tensor and f.form == WriteForm.AUGASSIGN
    return ((f.target == f.root or f.chain) and f.target_is_tensor and (f.read_after or dead_ok)
            and f.root_kind in ("local", "argument", "global", "attribute")
            and not (f.root_kind == "attribute" and f.leaf_kind == "param"))


def _statement(f: WriteFacts) -> Optional[int]:
    """The line of the write's statement when the write is the whole statement (or the value of `z = ...`), or
    one link of a chain of in-place calls that is."""
    if f.statement is None or (f.statement.shape not in ("expr", "assign", "statement") and not f.chain):
        return None
    return f.statement.line


def _exact_operands(f: WriteFacts) -> bool:
    """Every other operand keeps the out-of-place result's dtype (numbers, functions of the target, tensors known
    to have the target's dtype; for masked_fill_, any mask with a number). Its shape is kept anyway: the in-place
    write ran, so broadcasting never made the target larger."""
    if f.op == "masked_fill_":
        return len(f.operands) >= 2 and all(o.kind == "number" for o in f.operands[1:])
    return all(o.follows_target or (o.kind == "tensor" and o.dtype and o.dtype == f.target_dtype)
               for o in f.operands)


def _promotes(f: WriteFacts) -> bool:
    """A tensor operand known to have another dtype than the target: `x = x op y` would change x's dtype."""
    return bool(f.target_dtype) and any(o.kind == "tensor" and o.dtype and o.dtype != f.target_dtype
                                        and not o.follows_target for o in f.operands)


# ---------------------------------------------------------------------------------------------------------------
# Writes to saved tensors (FIP101, FIP104)


def _saved(f: WriteFacts, style: str) -> list[Candidate]:
    line = _statement(f)
    out: list[Candidate] = []
    if f.form in (WriteForm.INPLACE_MODULE, WriteForm.INPLACE_KW):
        out += _inplace_flag(f)
    elif f.form == WriteForm.OUT:
        if line is not None and f.statement.shape == "expr" and f.root_kind in ("local", "argument", "global") \
                and f.target == f.root and f.target_is_tensor and f.read_after:
            out.append(_candidate(OutToAssignment, Applicability.of(_local(f)),
                                  f"Assign the result to `{f.root}` instead of writing it with `out=`: `{{new}}`"
                                  + _unless_local(f), line=line))
    elif f.grad_mode == GradMode.OFF:
        out += _without_grad(f)
        out += _clone_at_save(f)
        return out + _move_after_backward(f)
    elif line is not None and _rebindable(f) and (f.root_kind != "element" or _local(f)):
        out += _out_of_place(f, line) + _setitem(f, line, style)
    rebinds = f.form in (WriteForm.METHOD, WriteForm.AUGASSIGN, WriteForm.SETITEM)
    clones = _clone_before(f, line) if rebinds and line is not None else []
    # A clone that may drop a write someone else sees comes after the exact clone where the op saves; so does a
    # clone of an argument, which would copy on every call of the helper rather than on the one path that saves.
    early = [c for c in clones if c.applicability == Applicability.SAFE and f.root_kind != "argument"]
    out += early
    if not f.through_detach:
        # A write through `y.detach()` reaches `y`; the author almost always meant a copy (`.detach()` is not one),
        # so keeping that reach (a clone where `y` was saved) is no fix: the copy is, unsafe.
        out += _clone_at_save(f)
    out += [c for c in clones if c not in early]
    if line is not None and _rebindable(f) and f.root_kind == "element" and not _local(f):
        out += _out_of_place(f, line)  # unsafe (another holder of the element's tensor): after the exact clones
    return out + _move_after_backward(f)


def _never_written(f: WriteFacts) -> bool:
    """A leaf that requires grad, created in the code that writes it (a local name), whose every run of the write
    raises the leaf error: no alias or view of it ever saw what the write does, so dropping the write changes
    nothing any reader saw."""
    return f.raises_always and f.root_kind == "local" and f.leaf_kind == "fresh"


def _inplace_flag(f: WriteFacts) -> list[Candidate]:
    """An op run in place by its `inplace` flag (a module built with `inplace=True`, or `F.relu(x, inplace=True)`):
    the op without the flag."""
    line = _statement(f)
    out: list[Candidate] = []
    unseen = _local(f) or _never_written(f)  # no other reader sees that the input is no longer written
    if f.form == WriteForm.INPLACE_MODULE:
        if f.module_ctor is not None:
            assigned_back = f.statement is not None and f.statement.assigned == f.root
            temporary = f.root_kind == "other" and not f.aliased  # no name shares it
            # Without the write, the module's input keeps its values: safe when no one reads them afterwards (a
            # temporary, or a name only this function sees, rebound or not read again). A caller's argument, an
            # alias or an attribute would see the difference.
            safe = temporary or ((assigned_back or not f.read_after) and unseen)
            out.append(_candidate(RemoveInplace, Applicability.of(safe),
                                  f"Construct the module without `inplace=True` (line {f.module_ctor.line}): `{{new}}`"
                                  + ("" if safe else _why_unsafe(f) or " (unsafe: the module's input is no longer "
                                                                        "written, and it is read later)"),
                                  ctor=f.module_ctor))
        if f.inplace_literal is not None:
            built = f.module_ctor.line if f.module_ctor else f.inplace_literal.line
            out.append(_candidate(InplaceLiteralOff, Applicability.UNSAFE,
                                  f"Turn off the `True` at line {f.inplace_literal.line} that builds the module at "
                                  f"line {built} in place: `{{new}}` (unsafe: the flag may decide more than this "
                                  f"module)", literal=f.inplace_literal))
    elif f.form == WriteForm.INPLACE_KW:
        if line is not None and f.root and f.root_kind != "other" and f.statement.shape in ("expr", "assign"):
            assigned_back = f.statement.assigned == f.root
            if f.statement.shape == "expr" and (not f.read_after or f.root_kind == "element"):
                pass  # `F.relu_(h)` as a statement on a name nothing reads, or on `d["a"]`: nothing to rebind
            else:
                safe = (assigned_back or f.statement.shape == "expr" or not f.read_after) and unseen
                out.append(_candidate(RemoveInplace, Applicability.of(safe),
                                      f"Drop `inplace=True`: `{{new}}`" + ("" if safe else _why_unsafe(f)),
                                      line=line, name=f.root))
    return out


def _out_of_place(f: WriteFacts, line: int) -> list[Candidate]:
    """`x.op_(y)` → `x = x.op(y)`, `x op= y` → `x = x op y`: exact with numbers and functions of `x`."""
    exact = _exact_operands(f)
    if f.chain and f.chain_promotes:
        return []  # the dtype would change: a clone before the write keeps it
    if f.chain and all(op in EXACT_WITH_SCALARS for op in f.chain):
        codemod, what = MethodOutOfPlace, "Use the out-of-place methods: `{new}`"
        exact = f.chain_exact
    elif f.form == WriteForm.METHOD and f.op in EXACT_WITH_SCALARS and f.statement.shape in ("expr", "assign"):
        codemod, what = MethodOutOfPlace, f"Use the out-of-place `{f.op[:-1]}`: `{{new}}`"
    elif f.form == WriteForm.AUGASSIGN and f.op in AUGASSIGN_EXACT and f.statement.shape == "statement":
        codemod, what = AugAssignOutOfPlace, "Rebind instead of writing in place: `{new}`"
    else:
        return []
    if _promotes(f):
        return []  # the dtype would change: a clone before the write keeps it
    if exact and _local(f):
        return [_candidate(codemod, Applicability.SAFE, what, line=line, name=f.root)]
    reason = _why_unsafe(f) or (" (unsafe: a tensor operand of another dtype would change the result's dtype, "
                                "where the in-place write keeps it)")
    return [_candidate(codemod, Applicability.UNSAFE, what + reason, line=line, name=f.root)]


def _setitem(f: WriteFacts, line: int, style: str) -> list[Candidate]:
    """`y[mask] = 0.0` → `y = y.masked_fill(mask, 0.0)` for a mask computed from `y` itself; with the functional
    style also select_scatter / slice_scatter (an int or slice on one dimension) and index_put (an index tensor).
    Only a number as the value: its dtype and shape then come from `y`."""
    if f.form != WriteForm.SETITEM or len(f.operands) != 1 or f.operands[0].kind != "number":
        return []
    parts = f.index_parts
    scatter = [p for p in parts if p in ("int", "slice")]
    if parts == ("mask_of_target",):
        form = "masked_fill"
    elif style != "functional":
        return []
    elif parts in (("int_tensor",), ("bool_tensor",)):
        form = "index_put"
    elif len(scatter) == 1 and all(p in ("int", "slice", "full") or (p == "ellipsis" and i == 0)
                                   for i, p in enumerate(parts)):
        form = "select_scatter" if scatter[0] == "int" else "slice_scatter"
    else:
        return []
    return [_candidate(SetitemOutOfPlace, Applicability.of(_local(f)),
                       f"Write the assignment out of place with `{form}`: `{{new}}`" + _unless_local(f),
                       line=line, name=f.root, form=form)]


def _clone_before(f: WriteFacts, line: int) -> list[Candidate]:
    """`x = x.clone()` before the write: the write goes to a copy, so the saved tensor stays intact."""
    if not (f.root and f.root.isidentifier() and f.target_is_tensor and f.read_after):
        return []
    if f.root_kind not in ("local", "argument", "global") or (f.root_kind == "global" and f.leaf_kind == "param"):
        return []
    return [_candidate(CloneBeforeWrite, Applicability.of(_local(f)),
                       f"Clone `{f.root}` before the write, so that the write goes to a copy{_kept(f)}: `{{new}}`"
                       + _unless_local(f), line=line, name=f.root)]


def _kept(f: WriteFacts) -> str:
    """What writing a copy leaves intact, for a description: the saved tensor, when the write changed one."""
    return " and the tensor saved for backward stays intact" if f.saves else ""


def _clone_at_save(f: WriteFacts) -> list[Candidate]:
    """`.clone()` where each invalidated save is made (outputs, or the saved input operand): always exact, and
    every alias still sees the write."""
    spans = []
    for save in f.saves:
        if not save.clonable:
            return []
        spans.append(save.operand if not save.role.startswith("output") and save.operand is not None else save.span)
    if not spans:
        return []
    first = f.saves[0]
    lines = sorted({str(s.span.line) for s in f.saves}, key=int)
    where = f"line {lines[0]}" if len(lines) == 1 else f"lines {', '.join(lines[:-1])} and {lines[-1]}"
    return [_candidate(CloneAtSave, Applicability.SAFE,
                       f"Clone the tensor `{first.op}` saves where it runs ({where}), so the write leaves it "
                       f"intact: `{{new}}`", spans=tuple(dict.fromkeys(spans)))]


def _data(f: WriteFacts) -> list[Candidate]:
    """`a.data /= a.data.sum(...)` → `a = a / a.sum(...)`: the usual intent of a `.data` write is the op itself,
    differentiated (unsafe: the gradients change to those of the op)."""
    line = _statement(f)
    if line is None or f.target != f"{f.root}.data" or not f.root.isidentifier() or not f.read_after \
            or f.root_kind not in ("local", "argument") or not f.target_is_tensor:
        return []
    if not ((f.form == WriteForm.METHOD and f.op in EXACT_WITH_SCALARS and f.statement.shape == "expr")
            or (f.form == WriteForm.AUGASSIGN and f.op in AUGASSIGN_EXACT)):
        return []
    return [_candidate(DataOutOfPlace, Applicability.UNSAFE, "Make the write a differentiable op: `{new}` (unsafe: "
                       "the gradients change to those of the op, where the `.data` write hid it from autograd)"
                       + _why_unsafe(f), line=line, name=f.root)]


def _array(f: WriteFacts, style: str) -> list[Candidate]:
    """A write to a tensor sharing a NumPy array's memory, which is read again (FIP105): a copy where the tensor is
    made (every holder of the tensor still sees the write, the array does not), else the write out of place. Both
    change what the array's later readers see, which is the point: unsafe."""
    why = " (unsafe: later readers of the array no longer see the write)"
    out = []
    if f.shares_array is not None:
        out.append(_candidate(CloneAtSave, Applicability.UNSAFE, f"Copy the array's memory where the tensor is made "
                                                                 f"(line {f.shares_array.line}), so the write leaves "
                                                                 f"the array alone: `{{new}}`" + why,
                              spans=(f.shares_array,)))
    return out + [_unsafe(c, why) for c in _saved(f, style)]


def _reused(f: WriteFacts, style: str) -> list[Candidate]:
    """An in-place call whose input is read again (FIP107): the call without `inplace=True` (or the literal it
    came from turned off). Unsafe: the later read then sees the values before the call, which is the point."""
    why = " (unsafe: the later read of the input sees the values before the call)"
    keep = (RemoveInplace, InplaceLiteralOff)
    return [_unsafe(c, why) for c in _saved(f, style) if c.codemod in keep]


def _move_after_backward(f: WriteFacts) -> list[Candidate]:
    """The statement holding the write moved after the backward that needs what it changes (every save agrees
    on where): an update that belongs after the backward. Always unsafe: the update runs later."""
    moves = {(s.move, s.after, s.backward, s.inputs) for s in f.saves}
    if len(moves) != 1:
        return []
    move, after, backward, inputs = moves.pop()
    if move is None or after is None:
        return []
    if f.form == WriteForm.OPTIMIZER:
        if not inputs:  # that backward reaches none of the parameters the step updates
            return [_candidate(MoveAfterBackward, Applicability.UNSAFE,
                               f"Move `{f.text}` after the backward at line {backward.line} (unsafe: the step now "
                               f"runs after that backward, which gets the gradients at the weights its forward "
                               f"used)", move=move, after=after, backward=backward)]
        return [_candidate(MoveAfterBackward, Applicability.UNSAFE,
                           f"Move `{f.text}` after the backward at line {backward.line}, restricted to "
                           f"`inputs={inputs}` (unsafe: the step now runs after that backward, which gets the "
                           f"gradients at the weights its forward used)",
                           move=move, after=after, backward=backward, inputs=inputs)]
    return [_candidate(MoveAfterBackward, Applicability.UNSAFE,
                       f"Move the update at line {move.line} after the backward at line {backward.line}"
                       + (" and the optimizer step that follows it" if after.line != backward.line else "")
                       + " (unsafe: the update now runs later, and the backward uses the weights as the forward "
                         "saw them)", move=move, after=after, backward=backward)]


def _recompute_forward(f: WriteFacts) -> list[Candidate]:
    """The forward that made the saves moved to the start of the loop whose iterations run the backward and then
    the write, or run again right after the write (every save agrees on where). Always unsafe: the values it binds
    change from there on."""
    places = {(s.recompute, s.loop, s.recompute_after, s.recompute_moved) for s in f.saves}
    if len(places) != 1:
        return []
    recompute, loop, after, moved = places.pop()
    if recompute is None:
        return []
    if loop is not None:
        return [_candidate(RecomputeForward, Applicability.UNSAFE,
                           f"Recompute the forward at line {recompute.line} at the start of the loop at line "
                           f"{loop.line}, so that each iteration's backward uses the weights as they are then "
                           f"(unsafe: the forward runs on every iteration)", recompute=recompute, loop=loop)]
    if after is not None and moved:
        readers = [str(span.line) for span in moved[1:]]
        return [_candidate(RecomputeForward, Applicability.UNSAFE,
                           f"Move the forward at line {recompute.line}"
                           + (f" and what reads it ({'line' if len(readers) == 1 else 'lines'} {', '.join(readers)})"
                              if readers else "")
                           + f" after line {after.line}, so that it runs with the updated weights (unsafe: it now "
                           f"computes with them)", recompute=recompute, recompute_after=after, moved=moved)]
    if after is not None:
        return [_candidate(RecomputeForward, Applicability.UNSAFE,
                           f"Run the forward at line {recompute.line} again after line {after.line}, so that the "
                           f"later backward uses the updated weights (unsafe: what follows sees the recomputed "
                           f"values)", recompute=recompute, recompute_after=after)]
    return []


def _detach_carried(f: WriteFacts) -> list[Candidate]:
    """The state a loop hands from one iteration to the next detached (every save agrees on where), so that each
    iteration's backward stops at its own forward: truncated backpropagation through time. Always unsafe: the
    gradient no longer flows into earlier iterations."""
    places = {(s.carry, s.carried, s.carried_from) for s in f.saves}
    if len(places) != 1:
        return []
    carry, carried, source = places.pop()
    if carry is None:
        return []
    where = f"`{carried} = {source}.detach()` at line {carry.line}" if source else \
        f"`{carried} = {carried}.detach()` before line {carry.line}"
    return [_candidate(DetachCarriedState, Applicability.UNSAFE,
                       f"Detach the state the loop carries into the next iteration ({where}), so that each "
                       f"backward stops at its own iteration (unsafe: no gradient flows into earlier iterations)",
                       carry=carry, carried=carried, carried_from=source)]


def _without_grad(f: WriteFacts) -> list[Candidate]:
    """A write under `torch.no_grad()`: autograd does not see it, so the written tensor keeps its history and later
    uses still send gradients through it. A copy made there has no history and would cut those gradients: the
    copy is made before grad mode is turned off."""
    if f.grad_on_line and f.root and f.root.isidentifier() and f.target_is_tensor and f.read_after \
            and f.root_kind in ("local", "argument", "global"):
        return [_candidate(CloneBeforeWrite, Applicability.of(_local(f)),
                           f"Clone `{f.root}` before `torch.no_grad()` (line {f.grad_on_line}), where the copy keeps "
                           f"`{f.root}`'s history: `{{new}}`" + _unless_local(f), line=f.grad_on_line, name=f.root)]
    return []


# ---------------------------------------------------------------------------------------------------------------
# Leaf writes (FIP102)


def _leaf(f: WriteFacts) -> list[Candidate]:
    """Parameter updates go under no_grad; a write to an argument becomes a write to a copy; an op run in place by
    its flag runs without it."""
    if f.form in (WriteForm.INPLACE_MODULE, WriteForm.INPLACE_KW):
        # An activation run in place on a leaf (`F.relu(x, inplace=True)` on an input that requires grad): PyTorch
        # refuses the write, so nothing ever saw its result in place; the op out of place computes it.
        return _inplace_flag(f)
    line = _statement(f)
    if line is None:
        return []
    if f.root_kind == "argument":
        # seed 002's forward(x): x.add_(1) on a caller's leaf, in a function computing something else: compute a
        # new tensor (the caller's leaf is kept; the write never succeeded anyway). In a helper whose purpose is
        # the write (it returns nothing else) and nothing reads `x` afterwards, the write is an update of the
        # caller's leaf, which belongs under no_grad (a rebinding would drop it).
        if not f.read_after and not f.returns_other:
            if f.leaf_kind and f.statement.shape in ("expr", "statement"):
                return [_candidate(WrapNoGrad, Applicability.UNSAFE, "Wrap the update in `with torch.no_grad():` "
                                   f"(unsafe: `{f.root}` is an argument; a caller that passes a tensor whose gradient "
                                   "flows through the write would lose that gradient)", line=line)]
            return []
        out = _out_of_place(f, line) if _rebindable(f, dead_ok=True) else []
        if f.root.isidentifier() and f.target_is_tensor:
            out.append(_candidate(CloneBeforeWrite, Applicability.UNSAFE,
                                  f"Write a copy of `{f.root}`: `{{new}}`" + _why_unsafe(f), line=line, name=f.root))
        return [_as_unsafe(c, f) for c in out]
    if f.through_view and f.root_kind == "local" and f.read_after:
        # `flat = x.view(...)` or `w = self.weight.t()`, then a write to it, and the view read afterwards: the view
        # is used as an activation, so the write goes to a copy of it. (A view nothing reads again, such as
        # `row = w[0]; row.zero_()`, exists for its write to the leaf: an update, wrapped in no_grad below.)
        out = [_as_unsafe(c, f) for c in _out_of_place(f, line)] if _rebindable(f) else []
        if f.root.isidentifier() and f.target_is_tensor:
            out.append(_as_unsafe(_candidate(CloneBeforeWrite, Applicability.SAFE,
                                             f"Write a copy of the view `{f.root}`: `{{new}}`", line=line, name=f.root),
                                  f))
        return out
    if f.statement.shape in ("expr", "statement") and f.root_kind in ("local", "global", "attribute", "element") \
            and f.leaf_kind:
        # Only for a tensor known to be a leaf that requires grad: an activation written under no_grad would stop
        # passing the written values' gradient on, and a tensor that needs no grad needs no wrapping.
        return [_candidate(WrapNoGrad, Applicability.SAFE, "Wrap the update in `with torch.no_grad():` (a leaf that "
                                                           "requires grad is updated outside autograd; rebinding it "
                                                           "would stop it from training)", line=line)]
    return []


def _unsafe(c: Candidate, why: str) -> Candidate:
    """The same rewrite, unsafe (with `why` added to a safe one's description)."""
    if c.applicability == Applicability.UNSAFE:
        return c
    return Candidate(c.codemod, c.anchor, Applicability.UNSAFE, c.description + why)


def _as_unsafe(c: Candidate, f: WriteFacts) -> Candidate:
    """A rebinding of an argument or of a view of a leaf: unsafe, saying whose write is lost."""
    return _unsafe(c, _why_unsafe(f) or f" (unsafe: the leaf that `{f.root}` views is no longer written)")
