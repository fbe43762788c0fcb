"""Which rewrite fixes a diagnostic, and whether it is safe (keeps behaviour) or unsafe (as in ruff).

Decided from the facts the analysis records at each write site (see `analysis.calls.CallHandler.write_facts`):

- the most readable exact rewrite wins: `x.add_(1)` → `x = x.add(1)` and `x += 1` → `x = x + 1` when every
  operand is a Python number (same dtype, same broadcasting); `inplace=True` removed; `out=buf` → `buf = op(...)`;
- otherwise `NAME = NAME.clone()` before the write, which is exact for every write form (the in-place op still
  runs, on a copy, so setitem's casting and broadcasting, integer semantics and duplicate indices are kept) and
  leaves the saved tensor intact;
- a leaf update in grad mode (a parameter, or a `requires_grad=True` tensor outside a function argument) is
  wrapped in `with torch.no_grad():` — rebinding it would turn the parameter into a non-leaf and stop training;
- a fix is `safe` when the written variable is local and nothing else observes the mutation (no other name or
  view aliases it, it is not an argument, an attribute or a global); otherwise `unsafe`;
- no fix for an optimizer step before a backward (reordering changes which gradients the step sees) or for
  fused optimizers.
"""

from __future__ import annotations

from fixinplace.diagnostics import Diagnostic, Fix

# Out-of-place counterparts whose result equals the in-place one when the other operands are Python numbers
# (or a boolean mask for masked_fill_): same dtype, same shape, same gradient.
EXACT_WITH_SCALARS = {
    "add_", "sub_", "mul_", "div_", "clamp_", "clamp_min_", "clamp_max_", "masked_fill_", "pow_", "relu_",
    "sigmoid_", "tanh_", "exp_", "log_", "sqrt_", "neg_", "abs_", "sin_", "cos_", "square_", "reciprocal_",
    "rsqrt_", "floor_", "ceil_", "round_", "trunc_", "sign_", "hardtanh_", "leaky_relu_", "elu_", "lerp_",
}
AUGASSIGN_EXACT = {"add_", "sub_", "mul_", "div_"}


def _exact_out_of_place(d: Diagnostic) -> bool:
    """Whether `x.op_(...)` → `x = x.op(...)` keeps dtype and shape: Python-number operands (and a mask)."""
    op = d.datum("op")
    if op not in EXACT_WITH_SCALARS:
        return False
    kinds = d.datum("operand_kinds").split(",") if d.datum("operand_kinds") else []
    if op == "masked_fill_":
        return kinds[1:] == ["scalar"] or (len(kinds) >= 2 and all(k == "scalar" for k in kinds[1:]))
    return d.datum("operands") == "scalar"


def _applicability(d: Diagnostic) -> str:
    if d.datum("root_kind") == "local" and d.datum("aliased") != "True":
        return "safe"
    return "unsafe"


def _why_unsafe(d: Diagnostic) -> str:
    kind = d.datum("root_kind")
    root = d.datum("root")
    if d.datum("aliased") == "True":
        return f" (unsafe: another name or view shares `{root}`, and it would no longer see the write)"
    if kind == "argument":
        return f" (unsafe: `{root}` is an argument; the caller would no longer see the write)"
    if kind == "attribute":
        return f" (unsafe: `{root}` is an attribute; its other readers would no longer see the write)"
    if kind == "global":
        return f" (unsafe: `{root}` is a global; its other readers would no longer see the write)"
    return ""


def _fix(d: Diagnostic, strategy: str, description: str, applicability: str | None = None) -> Fix:
    applicability = applicability or _applicability(d)
    if applicability == "unsafe":
        description += _why_unsafe(d)
    return Fix(applicability=applicability, description=description, strategy=strategy)


def plan(d: Diagnostic) -> Fix | None:
    """The fix for one diagnostic, or None when no rewrite is correct."""
    form = d.datum("form")
    op = d.datum("op")
    root = d.datum("root")
    kind = d.datum("root_kind")
    shape = d.datum("stmt_shape")
    if form in ("optimizer", "") or d.code == "FIP103":
        return None
    if d.code == "FIP102":
        return _plan_leaf(d)
    if form == "inplace_module":
        # Safe when nobody can see the input's mutation: a temporary, or a local name the result is bound to.
        temporary = kind == "other"
        return _fix(d, "remove_inplace", f"Construct the module without `inplace=True` (line {d.datum('module_line')})",
                    "safe" if temporary or (_assigns_back(d) and _applicability(d) == "safe") else "unsafe")
    if not root or kind == "other":
        return None
    if form == "inplace_kw":
        if shape in ("expr", "assign"):
            return _fix(d, "remove_inplace", f"Drop `inplace=True`: `{root}` gets a new tensor")
        return None
    if form == "out":
        if shape == "expr" and kind in ("local", "argument", "global"):
            return _fix(d, "out_to_assignment", f"Assign the result to `{root}` instead of writing it with `out=`")
        return None
    if d.datum("role") == "output" and d.datum("saved_span") and \
            (_applicability(d) == "unsafe" or d.datum("leaf_kind") == "param"):
        # A write through a view, another name, an argument or an attribute: clone where the op makes its
        # output, so that every alias still sees the write and only the saved value is kept intact.
        return _clone_at_save(d)
    if kind == "attribute" and d.datum("leaf_kind") == "param":
        return None  # a Parameter attribute cannot be rebound to a tensor
    if d.datum("grad_mode") == "off":
        return _plan_without_grad(d)
    scalar = d.datum("operands") == "scalar"
    target = d.datum("target")
    if d.datum("saved_line") == d.datum("stmt_line") and target == root \
            and kind != "attribute" and shape in ("expr", "assign") and form == "method" and op.endswith("_"):
        # `v.div_(v.norm())`: the op that saves `v` runs inside the write, so a clone before it cannot help;
        # the out-of-place op can (exact unless the operand has another dtype, which the analysis cannot see).
        reason = "" if _why_unsafe(d) else " (unsafe: a tensor operand of another dtype would change the result's dtype)"
        return _fix(d, "method_out_of_place", f"Use the out-of-place `{op[:-1]}`: `{root} = {root}.{op[:-1]}(...)`"
                    + reason, "unsafe")
    if form == "method" and _exact_out_of_place(d) and target == root and shape in ("expr", "assign") \
            and kind != "attribute":
        return _fix(d, "method_out_of_place", f"Use the out-of-place `{op[:-1]}`: `{root} = {root}.{op[:-1]}(...)`")
    if form == "augassign" and scalar and op in AUGASSIGN_EXACT and target == root and kind != "attribute":
        return _fix(d, "augassign_out_of_place", f"Rebind instead of writing in place: `{root} = {root} ... `")
    return _fix(d, "clone_before_write", f"Clone `{root}` before the write so the tensor saved for backward stays "
                                         f"intact: `{root} = {root}.clone()`")


def _plan_without_grad(d: Diagnostic) -> Fix | None:
    """A write under `torch.no_grad()`: autograd does not see it, so the written tensor keeps its history and
    later uses still send gradients through it. A copy made there (rebinding or cloning under no_grad) has no
    history and would silently cut those gradients: the copy must be made before grad mode is turned off."""
    root = d.datum("root")
    if d.datum("role") == "output" and d.datum("saved_span"):
        return _clone_at_save(d)
    if d.datum("grad_on_line"):
        return _fix(d, "clone_before_write", f"Clone `{root}` before `torch.no_grad()` (line "
                    f"{d.datum('grad_on_line')}), where the copy keeps `{root}`'s history")
    return None


def _clone_at_save(d: Diagnostic) -> Fix:
    """Clone the saving op's output where it is made: every alias still sees the write (always safe)."""
    return _fix(d, "clone_at_save", f"Clone the output of `{d.datum('saved_by')}` where it is made "
                f"(line {d.datum('saved_line')}), so the tensor saved for backward stays intact", "safe")


def _assigns_back(d: Diagnostic) -> bool:
    return d.datum("stmt_shape") == "assign" and d.datum("assigned") == d.datum("root")


def _plan_leaf(d: Diagnostic) -> Fix | None:
    """Leaf writes: parameter updates go under no_grad; a write to an argument becomes a write to a copy."""
    kind = d.datum("root_kind")
    shape = d.datum("stmt_shape")
    if kind == "argument":
        # seed 002's forward(x): x.add_(1) on a caller's leaf: compute a new tensor (the caller's leaf is kept).
        root = d.datum("root")
        target = d.datum("target")
        if d.datum("form") == "method" and _exact_out_of_place(d) and target == root and shape in ("expr", "assign"):
            return Fix("unsafe", f"Use the out-of-place `{d.datum('op')[:-1]}`: `{root} = {root}."
                                 f"{d.datum('op')[:-1]}(...)`{_why_unsafe(d)}", "method_out_of_place")
        if d.datum("form") == "augassign" and d.datum("operands") == "scalar" and d.datum("op") in AUGASSIGN_EXACT \
                and target == root:
            return Fix("unsafe", f"Rebind instead of writing in place: `{root} = {root} ...`{_why_unsafe(d)}",
                       "augassign_out_of_place")
        return Fix("unsafe", f"Write a copy of `{root}` (`{root} = {root}.clone()`){_why_unsafe(d)}",
                   "clone_before_write")
    if shape in ("expr", "statement") and kind in ("local", "global", "attribute"):
        return Fix("safe", "Wrap the update in `with torch.no_grad():` (a leaf that requires grad is updated "
                           "outside autograd; rebinding it would stop it from training)", "wrap_no_grad")
    return None
