"""Running one side (original or patched) and computing the reference (runs in the child process: imports torch).

The meaning of a program that writes a tensor autograd saved: its forward values as it computes them, and its
gradients as if every saved tensor had been a private copy taken when it was saved. `saved_tensor_copies` computes
exactly that: the original under `torch.autograd.graph.saved_tensors_hooks` whose pack hook copies the tensor.

Reference order (the original usually raises, so it cannot always serve as its own reference):

1. the original as it is ("original"); it is also run with private copies of its saved tensors, and when the two
   disagree the original is silently wrong (a `.data` write, a NumPy alias, a fused optimizer step) and the copies'
   run is used ("saved_tensor_copies");
2. the original with private copies of its saved tensors ("saved_tensor_copies"), which gives the intended gradients
   of every non-leaf hazard, a tensor written again on every iteration of a loop included (where
   `allow_mutation_on_saved_tensors` is wrong: it keeps one copy per tensor, not one per save);
   `torch.autograd.graph.allow_mutation_on_saved_tensors()` ("allow_mutation_on_saved_tensors") when code refuses
   saved-tensor hooks;
3. a leaf written in place (the leaf error): with inputs, when the fixes compute a new tensor rather than wrap the
   write in no_grad, the original on clones of its leaf inputs with the parameters of its module inputs replaced by
   differentiable copies (`parameter_copies`) and private copies of its saved tensors ("original"); then the
   original on clones of its leaf inputs ("original");
   writes to leaves that are not inputs (parameters, weights or inputs it creates: `w -= lr * w.grad`,
   `w.mul_(0.5)`, `coord += agg` on positions differentiated for forces), when the fixes compute a new tensor, with
   each write landing on a copy bound to the name it writes through, and private copies of saved tensors
   (`oracles.LeafUpdates`, `out_of_place`; "original"); else, or when that fails, under `torch.no_grad()`, read as
   updates of state ("original"); the reading used is said in the reason;
4. `torch.func.functionalize` of the entry ("functionalize"; inputs needed; fails on index assignment in 2.13);
5. central finite differences in float64 on the original run under no_grad ("finite_differences"; small float64
   inputs only). They also cross-check the gradients of references 1-4 whenever the inputs allow (`job`).
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import sys
import types
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F

from fixinplace.verify.compare import compare, flatten
from fixinplace.verify.inputs import Call, factory_call, module_globals, one_line, resolve, seed_all, synth_call
from fixinplace.verify.oracles import (FD_STEP, FD_TOLERANCE, DetachCopies, LeafUpdates, fd_feasible,
                                       fd_gradients, float_outputs, summed)
from fixinplace.verify.overlay import other_files

DIRECTIONS = 4  # random directions of the directional cross-check (when there are too many inputs for all of them)
DIRECTION_SEED = 1234

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


#: The entry of a job that runs the whole file as a script (a notebook: its code cells in order).
SCRIPT = "<module>"


def load_module(text: str, path: str, role: str, as_main: bool = False) -> types.ModuleType:
    """A fresh module executed from `text` (`__file__` = `path`; `__name__` "__main__" with `as_main`, so that an
    `if __name__ == "__main__":` block runs as it does when the file is run as a script)."""
    _counter[0] += 1
    name = f"_fixinplace_verify_{role}_{_counter[0]}"
    module = types.ModuleType("__main__" if as_main else name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses, pickling and typing look the module up by name
    previous = sys.modules.get("__main__")
    if as_main:
        sys.modules["__main__"] = module
    try:
        exec(compile(text, path, "exec"), module.__dict__)
    finally:
        if as_main and previous is not None:
            sys.modules["__main__"] = previous
    return module


def top_level_names(text: str) -> set[str]:
    """The names a script binds at module level (outside functions and classes): the state a run leaves."""
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                continue
            if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                names.add(child.id)
            visit(child)

    visit(ast.parse(text))
    return names


def script_state(module, names: set[str]) -> dict:
    """What a script leaves behind, flattened: its module-level values among `names` (tensors with their `.grad`,
    `nn.Module`s' parameters, buffers and gradients, optimizers' state, numbers, strings, lists and dicts of them);
    functions, classes and modules are not state."""
    entries: dict = {}
    for name in sorted(names):
        value = vars(module).get(name)
        if name.startswith("__") or isinstance(value, (types.ModuleType, types.FunctionType, type)):
            continue
        if isinstance(value, torch.optim.Optimizer):
            flatten(value.state_dict()["state"], f"global {name}.state", "outputs", entries)
        else:
            flatten(value, f"global {name}", "outputs", entries)
    return entries


def run_script(text: str, job: dict, device: str, role: str, mode: str = "plain") -> Side:
    """Run `text` as a script (seeded, on `device`, what it prints captured) and take the state it leaves and what
    it printed; never raises. `mode` as `run_side`'s, of those that need no inputs."""
    side = Side()
    wrap = _WRAPS.get(mode, contextlib.nullcontext)
    if mode not in ("plain", "saved_copies", "allow_mutation", "detach_copies", *LEAF_READINGS):
        side.error, side.stage = f"not for a whole script: {mode}", "call"
        return side
    printed = io.StringIO()
    updates = _reading(mode)
    try:
        seed_all()
        with on_device(device), wrap(), contextlib.redirect_stdout(printed), updates:
            module = load_module(text, job["path"], role, as_main=True)
    except BaseException as e:  # user code: SystemExit, KeyboardInterrupt included
        side.error = one_line(e)
        side.stage = "import" if isinstance(e, (ImportError, SyntaxError)) else "call"
        return side
    unread = _unread(updates) if mode in LEAF_READINGS else ""
    if unread:
        side.error, side.stage = unread, "call"
        return side
    side.entries = script_state(module, top_level_names(job["original"]))
    if printed.getvalue():  # nothing printed is no output to compare (a missing one on one side is a difference)
        side.entries["printed"] = ("outputs", printed.getvalue())
    return side


def load_original(job: dict, device: str, role: str):
    """(module, entry): the original text loaded fresh on `device` (seeded) as module `role`, and the job's entry."""
    seed_all()
    with on_device(device), other_files(job, role):
        module = load_module(job["original"], job["path"], role)
    return module, resolve(module, job["entry"])


def _short(error: str) -> str:
    """The first sentence of an error, for notes on results that verified."""
    head = error.split(": [", 1)[0].split(". ", 1)[0].rstrip(".")
    return head if len(head) <= 160 else head[:157] + "..."


def composite_dropout(plain, functional: bool = True, devices: tuple[str, ...] = ("cuda",)):
    """`plain` (`F.dropout`, or `torch.dropout` with `functional` False: no `inplace` parameter) drawing its mask on
    `devices` as the in-place form does.

    On CUDA, `F.dropout(x, p)` runs the fused `native_dropout` kernel while `F.dropout(x, p, inplace=True)` runs
    `bernoulli_` then `mul_`: from the same seed they draw different masks (measured on an H100, torch 2.11: kept
    fractions 0.6975 and 0.6995 of 64x64), so a fix that makes a dropout out of place would never match its
    reference. This draws the out-of-place mask as ATen's own non-fused path does (`empty_like(x).bernoulli_(1 -
    p)`, divided by `1 - p`, then `x * noise`): bit for bit the in-place form's values and gradients. On the CPU
    both forms take that path already."""

    def dropout(input, p=0.5, training=True, inplace=False):
        if (inplace or not training or not isinstance(input, torch.Tensor) or input.device.type not in devices
                or not 0 < p < 1 or input.numel() == 0):
            return plain(input, p, training, inplace) if functional else plain(input, p, training)
        noise = torch.empty_like(input).bernoulli_(1 - p)
        noise.div_(1 - p)
        return input * noise

    dropout.__wrapped__ = plain
    return dropout


@contextlib.contextmanager
def same_dropout_masks():
    """`F.dropout` and `torch.dropout` out of place draw their CUDA masks as their in-place forms do
    (`composite_dropout`) while this is entered."""
    saved = F.dropout, torch.dropout
    F.dropout = composite_dropout(saved[0])
    torch.dropout = composite_dropout(saved[1], functional=False)
    try:
        yield
    finally:
        F.dropout, torch.dropout = saved


@contextlib.contextmanager
def on_device(device: str):
    """On "cuda": CUDA as the default device, deterministic algorithms (warn only), dropout masks drawn alike
    in place and out of place (`same_dropout_masks`); on "cpu": nothing."""
    if device == "cuda":
        previous = torch.get_default_device() if hasattr(torch, "get_default_device") else None
        torch.set_default_device("cuda")
        try:
            torch.use_deterministic_algorithms(True, warn_only=True)
            with same_dropout_masks():
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


def _entries(out, call: Call, grads: list, module) -> dict:
    entries = flatten(out)
    for (label, _), g in zip(call.leaves, grads):
        if g is not None:
            entries.update(flatten(g, f"{label}.grad", "grads"))
    entries.update(_effects(call, module))
    return entries


def _effects(call: Call, module) -> dict:
    """The state, after the call, of the call's arguments and of the module's globals, flattened as side effects."""
    effects: dict = {}
    for label, t in [*call.observed, *module_globals(module)]:
        effects.update(flatten(t, EFFECT + label, "effects"))
    return effects


def _copy_saved(t: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return t.clone()


def _as_saved(t: torch.Tensor) -> torch.Tensor:
    return t


def saved_tensor_copies():
    """Autograd keeps a private copy of each tensor it saves, taken when it saves it: later in-place writes (through
    the tensor, a view, `.data` or a NumPy alias) no longer reach what the backward reads."""
    return torch.autograd.graph.saved_tensors_hooks(_copy_saved, _as_saved)


#: The context each run mode runs the entry (or the script) in. With copies of its parameters, the program's other
#: writes to saved tensors mean what they do with private copies.
# The leaves' out-of-place reading keeps every saved tensor intact too: the copy a write lands on may be written
# again after an op saved it (`x.sub_(mu).div_(x.std(0))`: `std` saves the centred copy `div_` then writes).
_WRAPS = {"allow_mutation": torch.autograd.graph.allow_mutation_on_saved_tensors, "saved_copies": saved_tensor_copies,
          "copy_parameters": saved_tensor_copies, "leaf_out_of_place": saved_tensor_copies,
          "detach_copies": saved_tensor_copies}


@contextlib.contextmanager
def parameter_copies(args: list):
    """While entered, each parameter that requires grad of the `nn.Module`s among `args` is replaced in its module
    by a differentiable copy (`p.clone()`, one per parameter, tied ones share it): an in-place write to it, or to
    a view of it (`w = self.enc.weight.t(); w /= w.norm()`), lands on the copy, as on a tensor computed from the
    parameter, and its gradient reaches the parameter through the copy, as an out-of-place rewrite's does. The
    parameters are put back on exit, unwritten: what the program means when it writes a parameter inside the
    computation of its own loss (the leaf error)."""
    swapped = []
    copies: dict[int, torch.Tensor] = {}
    for arg in args:
        if not isinstance(arg, torch.nn.Module):
            continue
        for module in arg.modules():
            for name, param in list(module._parameters.items()):
                if param is None or not param.requires_grad:
                    continue
                if id(param) not in copies:
                    copies[id(param)] = param.clone()
                swapped.append((module, name, param))
                module._parameters[name] = copies[id(param)]  # not a Parameter: `_parameters` is set directly
    try:
        yield
    finally:
        for module, name, param in reversed(swapped):
            module._parameters[name] = param


#: The two readings of a program's writes to leaves it creates (`oracles.LeafUpdates`): as updates of state under
#: no_grad, or computed out of place (each on a copy bound to the name it writes through).
LEAF_READINGS = ("leaf_updates", "leaf_out_of_place")


def _reading(mode: str, arguments=()):
    """The `TorchFunctionMode` a run mode reads the program's writes with: `LeafUpdates` for a leaf reading,
    `DetachCopies` for "detach_copies", or a context that does nothing for the other modes."""
    if mode == "detach_copies":
        return DetachCopies()
    if mode not in LEAF_READINGS:
        return contextlib.nullcontext()
    return LeafUpdates(arguments, out_of_place=mode == "leaf_out_of_place")


def _unread(updates: LeafUpdates) -> str:
    """Why a leaf reading is no reference, or "" when it is one."""
    if not updates.count:
        return "no write to a leaf it creates to run under no_grad"
    if updates.unbound:
        return f"a write to a leaf it creates that out-of-place code cannot stand for: {updates.unbound[0]}"
    return ""


def run_side(text: str, job: dict, device: str, role: str, mode: str = "plain") -> Side:
    """Load `text` fresh and call the job's entry (seeded) on `device`; never raises. `mode`: "plain",
    "saved_copies" (`saved_tensor_copies`), "allow_mutation", "clone_leaves" (leaf inputs cloned), "copy_parameters"
    (leaf inputs cloned, the parameters of module inputs and of the instance replaced by differentiable copies:
    `parameter_copies`, with private copies of saved tensors), "leaf_updates"
    (`LeafUpdates`) or "functionalize". The `patched` side imports the other files the fixes rewrote from their
    patched texts (`overlay.other_files`)."""
    with other_files(job, role):
        return _run_side(text, job, device, role, mode)


def _run_side(text: str, job: dict, device: str, role: str, mode: str) -> Side:
    if job["entry"] == SCRIPT:
        return run_script(text, job, device, role, mode)
    side = Side()
    try:
        seed_all()
        with on_device(device):
            module = load_module(text, job["path"], role)
    except BaseException as e:  # user code: SystemExit, KeyboardInterrupt included
        side.error, side.stage = one_line(e), "import"
        return side
    try:
        entry = resolve(module, job["entry"])
    except (AttributeError, ImportError) as e:
        side.error, side.stage = f"no {job['entry']!r} in the module ({one_line(e)})", "import"
        return side
    wrap = _WRAPS.get(mode, contextlib.nullcontext)
    try:
        with on_device(device), wrap():
            side.stage = "inputs"
            call = build_call(module, job)
            args = call.args
            if mode in ("clone_leaves", "copy_parameters"):
                leaf_ids = {id(t) for _, t in call.leaves}
                args = [a.clone() if isinstance(a, torch.Tensor) and id(a) in leaf_ids else a for a in args]
            side.stage = "call"
            updates = _reading(mode, args)
            swapped = parameter_copies(args) if mode == "copy_parameters" else contextlib.nullcontext()
            with updates, swapped:
                seed_all()
                out = torch.func.functionalize(entry)(*args) if mode == "functionalize" else entry(*args)
                side.mask = [t.requires_grad for t in float_outputs(out)]
                try:
                    grads = _grads(out, call.leaves)
                except RuntimeError as e:  # the entry ran its own backward and freed the graph
                    if "a second time" not in str(e):
                        raise
                    grads = []
                    side.note = f"no input gradients: the entry runs its own backward ({_short(one_line(e))})"
            side.leaves = len(call.leaves) if grads else 0  # no gradients taken: nothing to cross-check
            side.entries = _entries(out, call, grads, module)
            unread = _unread(updates) if mode in LEAF_READINGS else ""
            if unread:
                side.error = unread
                return side
        side.stage = ""
    except BaseException as e:
        side.error = one_line(e)
    return side


def finite_differences(job: dict, device: str, mask: list | None) -> Side:
    """The original under no_grad: outputs and side effects as it leaves them, gradients by central differences."""
    side = Side()
    try:
        module, entry = load_original(job, device, "original_fd")
        with on_device(device), torch.no_grad():
            call = build_call(module, job)
            why = fd_feasible(call.leaves)
            if why:
                side.error = f"not taken: {why}"
                return side
            seed_all()
            out = entry(*call.args)
            entries = flatten(out)
            entries.update(_effects(call, module))

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


def directional_differences(job: dict, device: str, mask: list | None, reached: list[str],
                             directions: int = DIRECTIONS):
    """([leaf label], [directions: [one tensor per leaf]], [central difference along each]): the original's summed
    outputs (under no_grad, fresh inputs) differentiated along `directions` random directions over the leaves
    labelled in `reached` (the others are not moved); 2 forward calls per direction, whatever the number of
    inputs. Runs user code (a runner's step)."""
    module, entry = load_original(job, device, "original_fd_directions")
    with on_device(device), torch.no_grad():
        call = build_call(module, job)
        if any(t.dtype != torch.float64 for _, t in call.leaves):
            raise ValueError("inputs are not all float64")
        generator = torch.Generator().manual_seed(DIRECTION_SEED)
        all_vs, numerics = [], []
        for _ in range(directions):
            vs = [torch.randn(t.shape, generator=generator, dtype=torch.float64) * float(label in reached)
                  for label, t in call.leaves]

            def along(h: float) -> float:
                def perturb(j: int, leaf: torch.Tensor) -> None:
                    leaf.add_(vs[j].to(leaf.device), alpha=h)

                c = build_call(module, job, perturb)
                seed_all()
                return summed(entry(*c.args), mask)

            all_vs.append(vs)
            numerics.append((along(FD_STEP) - along(-FD_STEP)) / (2 * FD_STEP))
    return [label for label, _ in call.leaves], all_vs, numerics


def directional_check(job: dict, device: str, ref: Side, run) -> tuple[bool, str]:
    """(agrees, note or why not): for each of DIRECTIONS random directions v over all leaves, the central difference
    of the original's summed outputs (`directional_differences`, run by `run`) against the reference's gradients
    dotted with v. An input autograd does not reach is not moved."""
    reached = [k.removesuffix(".grad") for k, (kind, g) in ref.entries.items()
               if kind == "grads" and isinstance(g, torch.Tensor)]
    labels, all_vs, numerics = run("directional_differences", job, device, ref.mask, reached)
    grads = [ref.entries.get(f"{label}.grad", (None, None))[1] for label in labels]
    worst = 0.0
    for vs, numeric in zip(all_vs, numerics):
        analytic = float(sum((g.to(torch.float64) * v).sum() for g, v in zip(grads, vs) if isinstance(g, torch.Tensor)))
        diff = abs(numeric - analytic)
        worst = max(worst, diff)
        if diff > FD_TOLERANCE[0] * abs(analytic) + FD_TOLERANCE[1] * (1 + math.sqrt(sum(v.numel() for v in vs))):
            return False, (f"along a random direction: central difference {numeric:.6g}, reference gradient "
                           f"{analytic:.6g}")
    return True, (f"gradients cross-checked by central finite differences along {len(numerics)} random directions "
                  f"({2 * len(numerics)} forward calls, max abs diff {worst:.1e})")


def _tried(tried: list) -> str:
    """"a, b: error; c: other error" from [(what, error)], each error said once."""
    by_error: dict[str, list[str]] = {}
    for what, error in tried:
        by_error.setdefault(error, []).append(what)
    return "; ".join(f"{', '.join(whats)}: {error}" for error, whats in by_error.items())


def _reads_as_update(job: dict) -> bool:
    """Whether a write to a parameter is read as an update of state (the fixes wrap it in `torch.no_grad()`, or
    nothing says: the reading verify used first) rather than as part of the computation (an out-of-place fix
    computes a new tensor from the parameter): the two readings mean different programs."""
    strategies = set(job.get("strategies", ()))
    return not strategies or "wrap_no_grad" in strategies


def _through_detach(job: dict, device: str, run) -> tuple[Side, str, str] | None:
    """For fixes that write a copy where the original writes through `y.detach()` (which writes `y` too, seldom
    what such code means): the original with each `.detach()` returning a copy and private copies of saved
    tensors, when it runs; else None."""
    if not job.get("detach_writes"):
        return None
    side = run("run_side", job["original"], job, device, "original_detach_copies", "detach_copies")
    if not side.ok:
        return None
    return side, "saved_tensor_copies", ("the original writes through `.detach()`, which also writes the tensor it "
                                         "detaches: reference run with each `.detach()` a copy (as `.detach()."
                                         "clone()`), as the fixes compute it, and private copies of the tensors "
                                         "autograd saved")


def reference(job: dict, device: str, run) -> tuple[Side | None, str, str]:
    """(reference side or None, reference label, note or reason-for-skipping); `run(step, *args)` runs a step that
    runs user code (`fixinplace.verify.steps`, in the job's runner)."""
    original = job["original"]
    plain = run("run_side", original, job, device, "original")
    if plain.stage == "import":
        return None, "original", f"the original module cannot be loaded: {plain.error}"
    copies = run("run_side", original, job, device, "original_saved_copies", "saved_copies")
    if plain.ok:
        if copies.ok:
            same, why, _ = compare(plain.entries, copies.entries, device)
            if not same:
                return _through_detach(job, device, run) or (
                    copies, "saved_tensor_copies", "the original runs but silently differs from its run with "
                    f"private copies of the tensors autograd saved ({why})")
        return plain, "original", ""
    if copies.ok:
        return _through_detach(job, device, run) or (
            copies, "saved_tensor_copies", f"the original raises: {_short(plain.error)}")
    tried = [("with private copies of its saved tensors", _short(copies.error))]
    mutation = copies
    if not copies.leaf_error:  # code that refuses saved-tensor hooks (`disable_saved_tensors_hooks`)
        mutation = run("run_side", original, job, device, "original_allow_mutation", "allow_mutation")
        if mutation.ok:
            return mutation, "allow_mutation_on_saved_tensors", f"the original raises: {_short(plain.error)}"
        tried.append(("allow_mutation_on_saved_tensors", _short(mutation.error)))
    has_inputs = bool(job.get("inputs") or job.get("synth"))
    if plain.leaf_error or mutation.leaf_error:
        if has_inputs and not _reads_as_update(job):
            copied = run("run_side", original, job, device, "original_copied", "copy_parameters")
            if copied.ok:
                return copied, "original", ("the original writes a leaf input or parameter inside the computation: "
                                            "reference run on clones of its leaf inputs and differentiable copies "
                                            "of its parameters, which it leaves unwritten")
            tried.append(("on differentiable copies of its leaf inputs and parameters", _short(copied.error)))
        if has_inputs:
            cloned = run("run_side", original, job, device, "original_cloned", "clone_leaves")
            if cloned.ok:
                return cloned, "original", "the original writes a leaf input: run on clones of its leaf inputs"
            tried.append(("on clones of its leaf inputs", _short(cloned.error)))
        # (mode, how the reason says it reads the writes, how a failure is listed)
        readings = [("leaf_updates", "under torch.no_grad(), read as updates of state, and an op's `inplace=True` on "
                     "them turned off, read as the activation it computes",
                     "with writes to its own leaves under no_grad")]
        if not _reads_as_update(job):
            readings.insert(0, ("leaf_out_of_place", "computed out of place, as the fixes compute them (each on a copy "
                                "bound to the name it writes through, an op's `inplace=True` turned off), and private "
                                "copies of the tensors autograd saved",
                                "with its writes to its own leaves out of place"))
        for mode, how, tried_as in readings:
            side = run("run_side", original, job, device, f"original_{mode}", mode)
            if side.ok:
                return side, "original", ("the original writes in place, in grad mode, leaf tensors that require grad "
                                          "and that are not its inputs (parameters, weights or inputs it creates): "
                                          f"reference run with those writes {how}")
            tried.append((tried_as, _short(side.error)))
    if has_inputs:
        functional = run("run_side", original, job, device, "original_functionalize", "functionalize")
        if functional.ok:
            return functional, "functionalize", f"the original raises: {_short(plain.error)}"
        tried.append(("functionalize", _short(functional.error)))
        fd = run("finite_differences", job, device, None)
        if fd.ok:
            return fd, "finite_differences", (
                f"the original raises: {_short(plain.error)}; reference: its outputs under no_grad and gradients by "
                f"central finite differences in float64 ({fd.note}; nothing else worked: {_tried(tried)})")
        tried.append(("finite differences", _short(fd.error)))
    if (plain.leaf_error or mutation.leaf_error) and not has_inputs:
        return None, "saved_tensor_copies", (
            "no reference: the original writes in place a leaf tensor that requires grad (it raises with private "
            "copies of its saved tensors too, and also with its writes to its own leaves under no_grad), and a "
            "zero-argument entry gives no input to clone; pass --entry FN --inputs FACTORY")
    return None, "finite_differences" if has_inputs else "saved_tensor_copies", (
        f"no reference: the original raises ({_short(plain.error)}); tried {_tried(tried)}")
