"""Running one side (original or patched) and computing the reference (runs in the child process: imports torch).

Reference order (the original usually raises, so it cannot always serve as its own reference):

1. the original as it is ("original"); it is also run under `allow_mutation_on_saved_tensors()`, and when the two
   disagree the original is silently wrong (a `.data` write, a fused optimizer step) and the second is used;
2. the original under `torch.autograd.graph.allow_mutation_on_saved_tensors()` ("allow_mutation_on_saved_tensors"),
   which gives the intended gradients for non-leaf hazards;
3. a leaf written in place (the leaf error): with inputs, the original on clones of its leaf inputs ("original");
   an optimizer-style update of a leaf that holds a `.grad` (`w -= lr * w.grad`), run under `torch.no_grad()` by
   `oracles.LeafUpdates` ("original"); both are said in the reason;
4. `torch.func.functionalize` of the entry ("functionalize"; inputs needed; fails on index assignment in 2.13);
5. central finite differences in float64 on the original run under no_grad ("finite_differences"; small float64
   inputs only). They also cross-check the gradients of references 1-4 whenever the inputs allow.
"""

from __future__ import annotations

import contextlib
import sys
import types
from dataclasses import dataclass, field

import torch

from fixinplace.verify.compare import compare, flatten
from fixinplace.verify.inputs import Call, factory_call, find_shapes, one_line, resolve, seed_all, synth_call
from fixinplace.verify.oracles import (FD_TOLERANCE, LeafUpdates, fd_feasible, fd_gradients, float_outputs,
                                       summed)

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"
EFFECT = "effect:"  # key prefix of a visible side effect in the flattened entries


@dataclass
class Side:
    """What one run produced: flattened results, or the error it raised."""

    entries: dict = field(default_factory=dict)
    error: str = ""
    stage: str = ""  # "import", "inputs", "call"
    mask: list | None = None  # which float outputs require grad (their sum is what gradients are taken of)
    leaves: int = 0  # how many leaves gradients were taken of
    note: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def leaf_error(self) -> bool:
        return LEAF_ERROR in self.error or "a view of a leaf Variable" in self.error


_counter = [0]


def load_module(text: str, path: str, role: str) -> types.ModuleType:
    """A fresh module executed from `text` (`__file__` = `path`, not `__main__`)."""
    _counter[0] += 1
    name = f"_fixinplace_verify_{role}_{_counter[0]}"
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses, pickling and typing look the module up by name
    code = compile(text, path, "exec")
    exec(code, module.__dict__)
    return module


def _short(error: str) -> str:
    """The first sentence of an error, for notes on results that verified."""
    head = error.split(": [", 1)[0].split(". ", 1)[0].rstrip(".")
    return head if len(head) <= 160 else head[:157] + "..."


@contextlib.contextmanager
def _device(device: str):
    if device == "cuda":
        previous = torch.get_default_device() if hasattr(torch, "get_default_device") else None
        torch.set_default_device("cuda")
        try:
            torch.use_deterministic_algorithms(True, warn_only=True)
            yield
        finally:
            torch.use_deterministic_algorithms(False)
            torch.set_default_device(previous or "cpu")
    else:
        yield


def build_call(module, job: dict, perturb=None) -> Call:
    """The arguments of the job's entry: synthesised, from its factory, or none."""
    if job.get("synth"):
        return synth_call(module, job["synth"], job["shapes"], perturb)
    if job.get("inputs"):
        return factory_call(module, job["inputs"], perturb)
    return Call()


def _grads(out, leaves: list) -> list:
    """Gradients of the sum of the float outputs that require grad, with respect to `leaves`."""
    if not leaves:
        return []
    terms = [t.sum() for t in float_outputs(out) if t.requires_grad]
    if not terms:
        return [None] * len(leaves)
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return list(torch.autograd.grad(total, [t for _, t in leaves], allow_unused=True))


def _entries(out, call: Call, grads: list) -> dict:
    entries = flatten(out)
    for (label, _), g in zip(call.leaves, grads):
        if g is not None:
            entries.update(flatten(g, f"{label}.grad", "grads"))
    for label, t in call.observed:
        entries.update(flatten(t, EFFECT + label, "effects"))
    return entries


MODES = ("plain", "allow_mutation", "clone_leaves", "leaf_updates", "functionalize")


def run_side(text: str, job: dict, device: str, role: str, mode: str = "plain", module=None) -> Side:
    """Load `text` fresh (or use `module`) and call the job's entry (seeded) on `device` in `mode`; never raises."""
    side = Side()
    if module is None:
        try:
            seed_all()
            with _device(device):
                module = load_module(text, job["path"], role)
        except BaseException as e:  # user code: SystemExit, KeyboardInterrupt included
            side.error, side.stage = one_line(e), "import"
            return side
    try:
        entry = resolve(module, job["entry"])
    except (AttributeError, ImportError) as e:
        side.error, side.stage = f"no {job['entry']!r} in the module ({one_line(e)})", "import"
        return side
    wrap = {"allow_mutation": torch.autograd.graph.allow_mutation_on_saved_tensors,
            "leaf_updates": LeafUpdates}.get(mode, contextlib.nullcontext)
    try:
        with _device(device), wrap() as ctx:
            side.stage = "inputs"
            call = build_call(module, job)
            args = call.args
            if mode == "clone_leaves":
                leaf_ids = {id(t) for _, t in call.leaves}
                args = [a.clone() if isinstance(a, torch.Tensor) and id(a) in leaf_ids else a for a in args]
            side.stage = "call"
            seed_all()
            out = torch.func.functionalize(entry)(*args) if mode == "functionalize" else entry(*args)
            side.mask = [t.requires_grad for t in float_outputs(out)]
            try:
                grads = _grads(out, call.leaves)
            except RuntimeError as e:  # the entry ran its own backward and freed the graph
                if "a second time" not in str(e):
                    raise
                grads, side.note = [], f"no input gradients: the entry runs its own backward ({_short(one_line(e))})"
            side.leaves = len(call.leaves)
            side.entries = _entries(out, call, grads)
            if mode == "leaf_updates" and not ctx.count:
                side.error = "no leaf update to run under no_grad"
                return side
        side.stage = ""
    except BaseException as e:
        side.error = one_line(e)
    return side


def finite_differences(job: dict, device: str, mask: list | None) -> Side:
    """The original under no_grad: outputs and side effects as it leaves them, gradients by central differences."""
    side = Side()
    try:
        seed_all()
        with _device(device):
            module = load_module(job["original"], job["path"], "original_fd")
        entry = resolve(module, job["entry"])
        with _device(device), torch.no_grad():
            call = build_call(module, job)
            why = fd_feasible(call.leaves)
            if why:
                side.error = f"not taken: {why}"
                return side
            seed_all()
            out = entry(*call.args)
            entries = flatten(out)
            for label, t in call.observed:
                entries.update(flatten(t, EFFECT + label, "effects"))

            def evaluate(i: int, k: int, h: float) -> float:
                def perturb(j: int, leaf: torch.Tensor) -> None:
                    if j == i:
                        leaf.view(-1)[k] += h

                c = build_call(module, job, perturb)
                seed_all()
                return summed(entry(*c.args), mask)

            grads = fd_gradients(evaluate, call.leaves)
        for (label, _), g in zip(call.leaves, grads):  # zeros match a None gradient (see compare)
            entries.update(flatten(g, f"{label}.grad", "grads"))
        side.entries = entries
        side.leaves = len(call.leaves)
        side.note = f"{2 * sum(t.numel() for _, t in call.leaves)} forward calls"
    except BaseException as e:
        side.error = one_line(e)
    return side


def _prepare(job: dict, device: str) -> str:
    """Choose the synthesised input shapes on the original (under allow_mutation_on_saved_tensors); "" or why not."""
    if not job.get("synth") or job.get("shapes") is not None:
        return ""
    try:
        seed_all()
        with _device(device):
            module = load_module(job["original"], job["path"], "original_shapes")
        entry = resolve(module, job["entry"])
    except BaseException as e:
        return f"the original module cannot be loaded: {one_line(e)}"

    def run(shapes: list) -> None:
        """Raises the first error when the forward runs neither under allow_mutation_on_saved_tensors, nor as it
        is (code that refuses saved-tensor hooks), nor under no_grad (a leaf written in place: the hazard)."""
        first = None
        for wrap in (torch.autograd.graph.allow_mutation_on_saved_tensors, contextlib.nullcontext, torch.no_grad):
            try:
                with wrap():
                    args = synth_call(module, job["synth"], shapes).args
                    seed_all()
                    entry(*args)
                return
            except Exception as e:
                first = first or e
                if wrap is contextlib.nullcontext and LEAF_ERROR not in str(e) and "view of a leaf" not in str(e):
                    break
        raise first

    with _device(device):
        shapes, why = find_shapes(module, job["synth"], run)
    job["shapes"] = shapes
    return why


def _tried(tried: list) -> str:
    """"a, b: error; c: other error" from [(what, error)], each error said once."""
    by_error: dict[str, list[str]] = {}
    for what, error in tried:
        by_error.setdefault(error, []).append(what)
    return "; ".join(f"{', '.join(whats)}: {error}" for error, whats in by_error.items())


def reference(job: dict, device: str) -> tuple[Side | None, str, str]:
    """(reference side or None, reference label, note or reason-for-skipping)."""
    original = job["original"]
    plain = run_side(original, job, device, "original")
    if plain.stage == "import":
        return None, "original", f"the original module cannot be loaded: {plain.error}"
    mutation = run_side(original, job, device, "original_allow_mutation", "allow_mutation")
    if plain.ok:
        if mutation.ok:
            same, _, _ = compare(plain.entries, mutation.entries, device)
            if not same:
                return (mutation, "allow_mutation_on_saved_tensors",
                        "the original runs but silently differs from its run under allow_mutation_on_saved_tensors")
        return plain, "original", ""
    if mutation.ok:
        return mutation, "allow_mutation_on_saved_tensors", f"the original raises: {_short(plain.error)}"
    tried = [("allow_mutation_on_saved_tensors", _short(mutation.error))]
    has_inputs = bool(job.get("inputs") or job.get("synth"))
    if plain.leaf_error or mutation.leaf_error:
        if has_inputs:
            cloned = run_side(original, job, device, "original_cloned", "clone_leaves")
            if cloned.ok:
                return cloned, "original", "the original writes a leaf input: run on clones of its leaf inputs"
            tried.append(("on clones of its leaf inputs", _short(cloned.error)))
        updates = run_side(original, job, device, "original_leaf_updates", "leaf_updates")
        if updates.ok:
            return updates, "original", ("the original updates a leaf that holds a .grad in place in grad mode: "
                                         "reference run with those updates under torch.no_grad()")
        tried.append(("with leaf updates under no_grad", _short(updates.error)))
    if has_inputs:
        functional = run_side(original, job, device, "original_functionalize", "functionalize")
        if functional.ok:
            return functional, "functionalize", f"the original raises: {_short(plain.error)}"
        tried.append(("functionalize", _short(functional.error)))
        fd = finite_differences(job, device, None)
        if fd.ok:
            return fd, "finite_differences", (
                f"the original raises: {_short(plain.error)}; reference: its outputs under no_grad and gradients by "
                f"central finite differences in float64 ({fd.note}; nothing else worked: {_tried(tried)})")
        tried.append(("finite differences", _short(fd.error)))
    if (plain.leaf_error or mutation.leaf_error) and not has_inputs:
        return None, "allow_mutation_on_saved_tensors", (
            "no reference: the original writes in place a leaf tensor that requires grad (it raises under "
            "allow_mutation_on_saved_tensors too, and it is not an update of a leaf holding a .grad), and a "
            "zero-argument entry gives no input to clone; pass --entry FN --inputs FACTORY")
    return None, "finite_differences" if has_inputs else "allow_mutation_on_saved_tensors", (
        f"no reference: the original raises ({_short(plain.error)}); tried {_tried(tried)}")


def _split(entries: dict, kind: str) -> tuple[dict, dict]:
    inside = {k: v for k, v in entries.items() if v[0] == kind}
    return inside, {k: v for k, v in entries.items() if v[0] != kind}


def _effects_reason(why: str) -> str:
    key, _, rest = why.partition(": ")
    what = key[len(EFFECT):] if key.startswith(EFFECT) else key
    return f"the fix changes behaviour: {what} is left different from what the original leaves ({rest})"


def _cross_check(job: dict, device: str, ref: Side, label: str) -> tuple[bool, str]:
    """(agrees, note): the reference's gradients against central finite differences, when they can be taken."""
    if label == "finite_differences" or not ref.leaves or not (job.get("inputs") or job.get("synth")):
        return True, ""
    fd = finite_differences(job, device, ref.mask)
    if not fd.ok:
        return True, ""
    ref_grads, _ = _split(ref.entries, "grads")
    fd_grads, _ = _split(fd.entries, "grads")
    ok, why, maxima = compare(ref_grads, fd_grads, device, tolerances=FD_TOLERANCE)
    if ok:
        return True, (f"gradients cross-checked by central finite differences ({fd.note}, max abs diff "
                      f"{maxima['grads']:.1e})")
    return False, f"not proved: the reference's gradients disagree with central finite differences ({why})"


def _blank() -> dict:
    return {"status": "skipped", "reason": "", "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
            "reference": "original"}


def verify_job(job: dict, device: str, cuda_available: bool) -> dict:
    """One result (status, reason, max_abs_diff, reference) for a job on one device.

    A job on synthesised inputs that gives no proof (no shapes found, or skipped) falls back to the job's
    `fallback` entry (a zero-argument `main`) when it has one."""
    if device == "cuda" and not cuda_available:
        return dict(_blank(), reason="CUDA is not available on this machine (torch.cuda.is_available() is False)")
    why = _prepare(job, device)
    result = None if why else _verify(job, device)
    if job.get("fallback") and (result is None or result["status"] == "skipped"):
        first = f"no synthesised inputs: {why}" if why else f"on synthesised inputs: {result['reason']}"
        out = verify_job(dict(job, entry=job["fallback"], synth=None, inputs="", fallback=""), device,
                         cuda_available)
        out["reason"] = "; ".join(x for x in (f"through {job['fallback']}() ({first})", out["reason"]) if x)
        return out
    return result if result is not None else dict(_blank(), reason=f"no inputs: {why}")


def _verify(job: dict, device: str) -> dict:
    result = _blank()
    patched = run_side(job["patched"], job, device, "patched")
    ref, label, note = reference(job, device)
    result["reference"] = label
    if not patched.ok:
        if ref is None and patched.stage == "import":
            result["reason"] = f"the module cannot be loaded: {patched.error}"
            return result
        result["status"] = "failed"
        result["reason"] = f"the patched code raises: {patched.error}"
        return result
    if ref is None:
        result["reason"] = note
        return result
    shapes = f"synthesised float64 inputs of shapes {[tuple(s) for s in job['shapes']]}" if job.get("synth") else ""
    ref_effects, ref_rest = _split(ref.entries, "effects")
    new_effects, new_rest = _split(patched.entries, "effects")
    if label == "finite_differences":  # differences are accurate to about 1e-8, not to float64's 1e-7 rtol
        ref_grads, ref_rest = _split(ref_rest, "grads")
        new_grads, new_rest = _split(new_rest, "grads")
        grads_ok, grads_why, grads_max = compare(ref_grads, new_grads, device, tolerances=FD_TOLERANCE)
    else:
        grads_ok, grads_why, grads_max = True, "", {"grads": 0.0}
    ok, why, maxima = compare(ref_rest, new_rest, device)
    maxima["grads"] = max(maxima["grads"], grads_max["grads"])
    ok, why = ok and grads_ok, why or grads_why
    effects_ok, effects_why, effects_max = compare(ref_effects, new_effects, device)
    maxima["outputs"] = max(maxima["outputs"], effects_max["outputs"], effects_max.get("effects", 0.0))
    result["max_abs_diff"] = {"outputs": maxima["outputs"], "grads": maxima["grads"]}
    if not ok:
        result["status"] = "failed"
        result["reason"] = "; ".join(x for x in (why, note, shapes) if x)
        return result
    if not effects_ok:
        result["status"] = "failed"
        result["reason"] = "; ".join(x for x in (_effects_reason(effects_why), note, shapes) if x)
        return result
    agrees, check = _cross_check(job, device, ref, label)
    grads = [v for k, v in _split(ref.entries, "grads")[0].items() if isinstance(v[1], torch.Tensor)]
    if ref.leaves and not any(bool((g != 0).any()) for _, g in grads):
        check = "; ".join(x for x in (check, "weak: every gradient is zero on these inputs") if x)
    result["status"] = "verified" if agrees else "skipped"
    result["reason"] = "; ".join(x for x in (check if not agrees else "", note, shapes, check if agrees else "",
                                            patched.note) if x)
    return result
