"""One verification job on one device (child process: imports torch): choose the synthesised shapes, run the
patched code and the reference, compare outputs and gradients, then visible side effects, then cross-check the
reference's gradients with finite differences; fall back to `main()` when synthesised inputs prove nothing.
"""

from __future__ import annotations

import torch

from fixinplace.verify.compare import compare
from fixinplace.verify.inputs import SCALAR_VALUES, one_line
from fixinplace.verify.oracles import FD_TOLERANCE
from fixinplace.verify.reference import EFFECT, SCRIPT, Side, directional_check, reference


def _prepare(job: dict, device: str, run) -> str:
    """Choose the synthesised input shapes on the original (`steps.prepare_shapes`, in the runner); "" or why
    not."""
    if not job.get("synth") or job.get("shapes") is not None:
        return ""
    shapes, dtype, why = run("prepare_shapes", job, device)
    if shapes is None and why.startswith("the original module cannot be loaded"):
        return why
    job["shapes"] = shapes
    job["synth"] = dict(job["synth"], dtype=dtype or "float64")
    return why


def _split(entries: dict, kind: str) -> tuple[dict, dict]:
    inside = {k: v for k, v in entries.items() if v[0] == kind}
    return inside, {k: v for k, v in entries.items() if v[0] != kind}


def _effects_reason(why: str) -> str:
    key, _, rest = why.partition(": ")
    what = key[len(EFFECT):] if key.startswith(EFFECT) else key
    return f"the fix changes behaviour: {what} is left different from what the original leaves ({rest})"


def _cross_check(job: dict, device: str, ref: Side, label: str, run) -> tuple[bool, str]:
    """(agrees, note): the reference's gradients against central finite differences, when they can be taken."""
    if label == "finite_differences" or not ref.leaves or not (job.get("inputs") or job.get("synth")):
        return True, ""
    fd = run("finite_differences", job, device, ref.mask)
    if not fd.ok and "input elements" in fd.error:  # too many for every element: a few random directions
        try:
            agrees, note = directional_check(job, device, ref, run)
        except BaseException as e:
            return True, f"gradients not cross-checked by finite differences ({one_line(e)})"
        if agrees:
            return True, note
        return False, f"not proved: the reference's gradients disagree with central finite differences ({note})"
    if not fd.ok:
        return True, f"gradients not cross-checked by finite differences ({fd.error})"
    ref_grads, _ = _split(ref.entries, "grads")
    fd_grads, _ = _split(fd.entries, "grads")
    # An input autograd does not reach (read through `.data` or `.detach()`) has no gradient by the program's own
    # choice, which differences cannot know: only the gradients autograd gives are cross-checked.
    unreached = sorted(k.removesuffix(".grad") for k in set(fd_grads) - set(ref_grads))
    fd_grads = {k: v for k, v in fd_grads.items() if k in ref_grads}
    ok, why, maxima = compare(ref_grads, fd_grads, device, tolerances=FD_TOLERANCE)
    if ok:
        besides = f"; not {', '.join(unreached)}, which autograd does not reach" if unreached else ""
        return True, (f"gradients cross-checked by central finite differences ({fd.note}, max abs diff "
                      f"{maxima['grads']:.1e}{besides})")
    return False, f"not proved: the reference's gradients disagree with central finite differences ({why})"


def _on_purpose(job: dict) -> str:
    """What the job's fixes do to the program's meaning, in words, when every one of them changes it on purpose
    (`plan.on_purpose`); else ""."""
    return "; ".join(job.get("purposes") or ())


def _synthesised(job: dict) -> str:
    """`synthesised float64 inputs of shapes [(2, 3)]` (and `n=1`, `training=True` for Python scalars)."""
    kinds = job["synth"].get("kinds", {})
    tensors = [tuple(s) for (name, _), s in zip(job["synth"]["params"], job["shapes"]) if name not in kinds
               or kinds[name] not in SCALAR_VALUES]
    scalars = [f"{name}={SCALAR_VALUES[kinds[name]]}" for name, _ in job["synth"]["params"]
               if kinds.get(name) in SCALAR_VALUES]
    special = [f"{name}: {'indices 0 and 1' if kinds[name] == 'int' else 'a random mask'}"
               for name, _ in job["synth"]["params"] if kinds.get(name) in ("int", "bool")]
    return (f"synthesised {job['synth']['dtype']} inputs of shapes {tensors}"
            + (f" ({', '.join(special)})" if special else "")
            + (f" and {', '.join(scalars)}" if scalars else ""))


def _only_gradients_differ(ref: dict, new: dict, device: str) -> bool:
    """Whether two flattened runs agree on everything but their gradients."""
    ref_grads, ref_rest = _split(ref, "grads")
    new_grads, new_rest = _split(new, "grads")
    return bool(ref_grads) and set(ref_grads) == set(new_grads) and compare(ref_rest, new_rest, device)[0]


def _comparable(entries: dict) -> bool:
    """Whether a flattened result holds anything a comparison can tell apart (a tensor, a number, a string), not
    only None or objects the verifier cannot read."""
    return any(value is not None and not (isinstance(value, str) and value.startswith("<"))
               for _, value in entries.values())


def _what(entries: dict) -> str:
    """What an entry returned, for a message: `None`, or the kinds of objects the verifier could not read."""
    values = [value for kind, value in entries.values() if kind == "outputs"]
    if not values or all(value is None for value in values):
        return "None"
    return ", ".join(sorted({str(value) for value in values if value is not None}))[:80]


def _blank() -> dict:
    return {"status": "skipped", "reason": "", "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
            "reference": "original"}


def verify_job(job: dict, device: str, cuda_available: bool, run) -> dict:
    """One result (status, reason, max_abs_diff, reference) for a job on one device; `run(step, *args)` runs a
    step that runs user code (`fixinplace.verify.steps`, in the job's runner), everything else runs here.

    A job on synthesised inputs that gives no proof (no shapes found, or skipped) falls back to the job's
    `fallback` entry (a zero-argument `main`) when it has one."""
    if device == "cuda" and not cuda_available:
        return dict(_blank(), reason="CUDA is not available on this machine (torch.cuda.is_available() is False)")
    why = _prepare(job, device, run)
    result = None if why else _verify(job, device, run)
    if job.get("fallback") and (result is None or result["status"] == "skipped"):
        first = f"no synthesised inputs: {why}" if why else f"on synthesised inputs: {result['reason']}"
        out = verify_job(dict(job, entry=job["fallback"], synth=None, inputs="", fallback=""), device,
                         cuda_available, run)
        out["reason"] = "; ".join(x for x in (f"through {job['fallback']}() ({first})", out["reason"]) if x)
        return out
    return result if result is not None else dict(_blank(), reason=f"no inputs: {why}")


def _verify(job: dict, device: str, run) -> dict:
    result = _blank()
    patched = run("run_side", job["patched"], job, device, "patched")
    ref, label, note = reference(job, device, run)
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
    shapes = (_synthesised(job)
              if job.get("synth") else "")
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
    purposes = _on_purpose(job)
    if (not ok or not effects_ok) and purposes:
        result["status"] = "changed"
        result["reason"] = "; ".join(x for x in (
            f"the fix changes what the program computes, on purpose ({purposes}): not proved; it differs from the "
            f"original's meaning by up to {maxima['outputs']:.3g} in outputs and {maxima['grads']:.3g} in "
            f"gradients ({why or _effects_reason(effects_why)})", note, shapes) if x)
        return result
    if not ok and effects_ok and _only_gradients_differ(ref_rest, new_rest, device):
        # The fix's gradients differ from the reference's: before calling the fix wrong, ask whether the reference
        # itself is right. When finite differences disagree with it, nothing is proved either way.
        agrees, check = _cross_check(job, device, ref, label, run)
        if not agrees:
            result["reason"] = "; ".join(x for x in (
                f"not proved: the oracles disagree: the fix's gradients differ from the reference's ({why}), and "
                + check.removeprefix("not proved: "), note, shapes) if x)
            return result
    if not ok:
        result["status"] = "failed"
        result["reason"] = "; ".join(x for x in (why, note, shapes) if x)
        return result
    if not effects_ok:
        result["status"] = "failed"
        result["reason"] = "; ".join(x for x in (_effects_reason(effects_why), note, shapes) if x)
        return result
    if not _comparable(ref.entries) and not _comparable(patched.entries):
        # No output, gradient or side effect to compare: agreeing proves nothing.
        what = ("the script left no tensor, module, number or printed output" if job["entry"] == SCRIPT else
                f"{job['entry']}() returned {_what(ref.entries)} and left no argument, parameter or buffer the "
                "verifier can see")
        result["reason"] = "; ".join(x for x in (f"nothing to compare: {what}", note, shapes) if x)
        return result
    agrees, check = _cross_check(job, device, ref, label, run)
    grads = [v for k, v in _split(ref.entries, "grads")[0].items() if isinstance(v[1], torch.Tensor)]
    if ref.leaves and not any(bool((g != 0).any()) for _, g in grads):
        check = "; ".join(x for x in (check, "weak: every gradient is zero on these inputs") if x)
    if job["entry"] == SCRIPT:
        note = "; ".join(x for x in ("run as a script (random, torch and numpy seeded with 0 first), comparing the "
                                     "state it leaves and what it prints", note) if x)
    result["status"] = "verified" if agrees else "skipped"
    result["reason"] = "; ".join(x for x in (check if not agrees else "", note, shapes, check if agrees else "",
                                            patched.note) if x)
    return result
