"""Running one side (original or patched) and computing the reference (runs in the child process: imports torch).

Reference order (the original usually raises, so it cannot always serve as its own reference):

1. the original as it is ("original"); it is also run under `allow_mutation_on_saved_tensors()`, and when the two
   disagree the original is silently wrong (a `.data` write, a fused optimizer step) and the second is used;
2. the original under `torch.autograd.graph.allow_mutation_on_saved_tensors()` ("allow_mutation_on_saved_tensors"),
   which gives the intended gradients for non-leaf hazards;
3. a leaf written in place (the leaf error): with `--inputs`, the original is run on clones of its leaf inputs and
   the gradients are taken with respect to the leaves ("original", said in the reason); with a zero-argument
   entry there is no input to clone, so the result is `skipped` with the reason.

`functionalize` and `finite_differences` are named by the contract but not computed yet.
"""

from __future__ import annotations

import contextlib
import random
import sys
import types
from dataclasses import dataclass, field

import torch

from fixinplace.verify.compare import compare, flatten

LEAF_ERROR = "a leaf Variable that requires grad is being used in an in-place operation"


@dataclass
class Side:
    """What one run produced: flattened results, or the error it raised."""

    entries: dict = field(default_factory=dict)
    error: str = ""
    stage: str = ""  # "import", "inputs", "call"

    @property
    def ok(self) -> bool:
        return not self.error

    @property
    def leaf_error(self) -> bool:
        return LEAF_ERROR in self.error


def seed_all(seed: int = 0) -> None:
    random.seed(seed)
    torch.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(seed)
        except Exception:
            pass


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
    head = error.split(": [", 1)[0].split(". ", 1)[0]
    return head if len(head) <= 160 else head[:157] + "..."


def _resolve(module, dotted: str):
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _one_line(e: BaseException) -> str:
    text = " ".join(str(e).split())
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


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


def _inputs_grads(args, out, leaves):
    """Gradients of the sum of the tensor outputs that require grad, with respect to `leaves`."""
    if not leaves:
        return []
    terms = [t.sum() for t in _tensors(out) if t.requires_grad and (t.is_floating_point() or t.is_complex())]
    if not terms:
        return [None] * len(leaves)
    total = terms[0].real if terms[0].is_complex() else terms[0]
    for t in terms[1:]:
        total = total + (t.real if t.is_complex() else t)
    return list(torch.autograd.grad(total, leaves, allow_unused=True))


def _tensors(obj, depth=0):
    if depth > 12:
        return
    if isinstance(obj, torch.Tensor):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _tensors(v, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _tensors(v, depth + 1)


def run_side(text: str, job: dict, device: str, role: str, *, allow_mutation: bool = False,
             clone_leaves: bool = False) -> Side:
    """Load `text` fresh and call the job's entry (seeded) on `device`; never raises."""
    side = Side()
    try:
        seed_all()
        with _device(device):
            module = load_module(text, job["path"], role)
    except BaseException as e:  # user code: SystemExit, KeyboardInterrupt included
        side.error, side.stage = _one_line(e), "import"
        return side
    wrap = torch.autograd.graph.allow_mutation_on_saved_tensors if allow_mutation else contextlib.nullcontext
    try:
        entry = _resolve(module, job["entry"])
    except AttributeError as e:
        side.error, side.stage = f"no {job['entry']!r} in the module ({_one_line(e)})", "import"
        return side
    try:
        with _device(device), wrap():
            args: list = []
            leaves: list = []
            if job.get("inputs"):
                side.stage = "inputs"
                seed_all()
                made = _resolve(module, job["inputs"])()
                args = list(made) if isinstance(made, (tuple, list)) else [made]
                leaves = [a for a in args if isinstance(a, torch.Tensor) and a.is_leaf and a.requires_grad]
                if clone_leaves:
                    args = [a.clone() if any(a is l for l in leaves) else a for a in args]
            side.stage = "call"
            seed_all()
            out = entry(*args)
            grads = _inputs_grads(args, out, leaves) if job.get("inputs") else []
            entries = flatten(out)
            for i, g in enumerate(grads):
                if g is not None:
                    entries.update(flatten(g, f"inputs[{i}].grad", "grads"))
        side.entries = entries
        side.stage = ""
    except BaseException as e:
        side.error = _one_line(e)
    return side


def reference(job: dict, device: str) -> tuple[Side | None, str, str]:
    """(reference side or None, reference label, note or reason-for-skipping)."""
    original = job["original"]
    plain = run_side(original, job, device, "original")
    if plain.stage == "import":
        return None, "original", f"the original module cannot be loaded: {plain.error}"
    mutation = run_side(original, job, device, "original_allow_mutation", allow_mutation=True)
    if plain.ok:
        if mutation.ok:
            same, _, _ = compare(plain.entries, mutation.entries, device)
            if not same:
                return (mutation, "allow_mutation_on_saved_tensors",
                        "the original runs but silently differs from its run under allow_mutation_on_saved_tensors")
        return plain, "original", ""
    if mutation.ok:
        return mutation, "allow_mutation_on_saved_tensors", f"the original raises: {_short(plain.error)}"
    if plain.leaf_error or mutation.leaf_error:
        if job.get("inputs"):
            cloned = run_side(original, job, device, "original_cloned", clone_leaves=True)
            if not cloned.ok:
                cloned = run_side(original, job, device, "original_cloned_am", clone_leaves=True, allow_mutation=True)
            if cloned.ok:
                return cloned, "original", "the original writes a leaf input: run on clones of its leaf inputs"
            return None, "original", f"the original raises even on clones of its leaf inputs: {cloned.error}"
        return None, "allow_mutation_on_saved_tensors", (
            "no reference: the original writes in place a leaf tensor that requires grad (it raises under "
            "allow_mutation_on_saved_tensors too), and a zero-argument entry gives no input to clone; "
            "pass --entry FN --inputs FACTORY")
    return None, "allow_mutation_on_saved_tensors", (
        f"no reference: the original raises, also under allow_mutation_on_saved_tensors: {mutation.error}")


def verify_job(job: dict, device: str, cuda_available: bool) -> dict:
    """One result (status, reason, max_abs_diff, reference) for a job on one device."""
    result = {"status": "skipped", "reason": "", "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
              "reference": "original"}
    if device == "cuda" and not cuda_available:
        result["reason"] = "CUDA is not available on this machine (torch.cuda.is_available() is False)"
        return result
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
    ok, why, maxima = compare(ref.entries, patched.entries, device)
    result["max_abs_diff"] = maxima
    result["status"] = "verified" if ok else "failed"
    result["reason"] = "; ".join(x for x in (why, note) if x)
    return result
