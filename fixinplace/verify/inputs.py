"""The arguments of one call (child process: imports torch): from a factory, or synthesised.

A `Call` holds the positional arguments, the leaf tensors whose gradients are compared (`leaves`, labelled), and
the objects whose state after the call the caller can observe (`observed`: tensor arguments, the parameters and
buffers of module arguments). Synthesised inputs are float64 tensors (float32 when the original only runs in
float32): for each tensor parameter a leaf `randn(shape, dtype=float64, requires_grad=True)` is made, and the function receives `leaf.clone()` (it requires
grad, and writing it in place is allowed, as for an activation, so a write the caller would see is observed); the
instance of a method is built without arguments (`.double()` for an `nn.Module`). Every factory and synthesis call
is seeded the same way, so both sides see the same numbers.
"""

from __future__ import annotations

import importlib
import random
import sys
from dataclasses import dataclass, field

import torch

from fixinplace.diagnostics import one_line as collapse

SYNTH_SEED = 0
#: Shapes tried, in order, for parameters whose annotation gives none (all such parameters get the same shape),
#: after the shapes suggested by the instance's first layer.
COMMON_SHAPES = [(2, 3), (3,), (4, 4), (2, 3, 4), (2, 4), (2, 8), (2, 16), (3, 3), (2, 3, 4, 4), (1, 3, 8, 8),
                 (2, 32), (2, 64), (1, 1, 8, 8), (2, 4, 8)]


@dataclass
class Call:
    """One call's arguments, the leaves whose gradients are compared and what the caller can observe afterwards."""

    args: list = field(default_factory=list)
    leaves: list = field(default_factory=list)  # [(label, tensor)]
    observed: list = field(default_factory=list)  # [(label, tensor)]
    cloned_leaves: bool = False


def seed_all(seed: int = 0) -> None:
    """Seed `random`, torch (CPU and CUDA) and numpy when it is loaded."""
    random.seed(seed)
    torch.manual_seed(seed)
    np = sys.modules.get("numpy")
    if np is not None:
        try:
            np.random.seed(seed)
        except Exception:
            pass


def resolve(module, dotted: str):
    """`module.a.b` for "a.b"; "pkg.mod:name" imports `pkg.mod` and takes `name` from it."""
    if ":" in dotted:
        mod, _, dotted = dotted.partition(":")
        module = importlib.import_module(mod)
    obj = module
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _module_state(label: str, m: torch.nn.Module, with_params: bool) -> tuple[list, list]:
    leaves, observed = [], []
    for name, p in m.named_parameters():
        observed.append((f"{label}.{name}", p))
        if with_params and p.requires_grad and p.is_leaf:
            leaves.append((f"{label}.{name}", p))
    for name, b in m.named_buffers():
        observed.append((f"{label}.{name}", b))
    return leaves, observed


def factory_call(module, factory: str, perturb=None) -> Call:
    """`factory()`'s arguments: leaf tensor arguments that require grad and module parameters are the leaves;
    `perturb(i, leaf)`, when given, may change leaf i in place (under no_grad) before the call."""
    seed_all()
    made = resolve(module, factory)()
    args = list(made) if isinstance(made, (tuple, list)) else [made]
    call = Call(args=args)
    for i, a in enumerate(args):
        if isinstance(a, torch.Tensor):
            call.observed.append((f"inputs[{i}]", a))
            if a.is_leaf and a.requires_grad:
                call.leaves.append((f"inputs[{i}]", a))
        elif isinstance(a, torch.nn.Module):
            leaves, observed = _module_state(f"inputs[{i}]", a, True)
            call.leaves.extend(leaves)
            call.observed.extend(observed)
    return call


def module_globals(module) -> list[tuple[str, torch.Tensor]]:
    """The module-level tensors of a loaded module, and the parameters and buffers of its module-level
    `nn.Module`s: state an entry may change without returning it (`main()` training a global model)."""
    found: list[tuple[str, torch.Tensor]] = []
    for name, value in sorted(vars(module).items()):
        if name.startswith("__"):
            continue
        if isinstance(value, torch.Tensor):
            found.append((f"global {name}", value))
        elif isinstance(value, torch.nn.Module):
            found.extend(_module_state(f"global {name}", value, False)[1])
    return found


def _perturbed(call: Call, perturb, start: int = 0) -> None:
    if perturb is not None:
        with torch.no_grad():
            for i in range(start, len(call.leaves)):
                perturb(i, call.leaves[i][1])


#: The value a Python scalar parameter gets (see `fixinplace.verify.signature.PYTHON_SCALARS`).
SCALAR_VALUES = {"py_int": 1, "py_bool": True, "py_float": 0.5}


def synth_call(module, spec: dict, shapes: list, perturb=None) -> Call:
    """The call of `spec` (see `fixinplace.verify.signature.SynthSpec.to_json`) on tensors of `shapes`;
    `perturb(i, leaf)`, when given, may change leaf i in place (under no_grad) before it is used."""
    seed_all(SYNTH_SEED)
    call = Call()
    if spec["cls"]:
        instance = resolve(module, spec["cls"])()
        if isinstance(instance, torch.nn.Module) and spec.get("dtype", "float64") == "float64":
            instance = instance.double()
            leaves, observed = _module_state("self", instance, True)
            call.leaves.extend(leaves)
            call.observed.extend(observed)
        call.args.append(instance)
    seed_all(SYNTH_SEED + 1)
    for (name, _), shape in zip(spec["params"], shapes):
        kind = spec.get("kinds", {}).get(name, "float")
        if kind in SCALAR_VALUES:
            call.args.append(SCALAR_VALUES[kind])
            continue
        if kind != "float":  # an index (values 0 and 1: valid for any dimension of size 2 or more) or a mask
            arg = torch.randint(0, 2, tuple(shape)) if kind == "int" else torch.rand(*shape) > 0.5
            call.args.append(arg)
            call.observed.append((name, arg))
            continue
        leaf = torch.randn(*shape, dtype=getattr(torch, spec.get("dtype", "float64")), requires_grad=True)
        if perturb is not None:
            with torch.no_grad():
                perturb(len(call.leaves), leaf)
        arg = leaf.clone()
        call.args.append(arg)
        call.leaves.append((name, leaf))
        call.observed.append((name, arg))
    if perturb is not None and spec["cls"]:
        with torch.no_grad():
            for i, (label, t) in enumerate(call.leaves):
                if label.startswith("self."):
                    perturb(i, t)
    return call


def _hinted_shapes(instance) -> list[tuple[int, ...]]:
    """Input shapes suggested by the first layer of a module (Linear, ConvNd, norms, embeddings excluded)."""
    if not isinstance(instance, torch.nn.Module):
        return []
    nn = torch.nn
    for m in instance.modules():
        if isinstance(m, nn.Linear):
            return [(4, m.in_features)]
        if isinstance(m, nn.Bilinear):
            return [(4, m.in1_features)]
        if isinstance(m, (nn.Conv1d, nn.ConvTranspose1d)):
            return [(1, m.in_channels, 16)]
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            return [(1, m.in_channels, 8, 8)]
        if isinstance(m, (nn.Conv3d, nn.ConvTranspose3d)):
            return [(1, m.in_channels, 4, 4, 4)]
        if isinstance(m, nn.LayerNorm):
            return [(4, *m.normalized_shape)]
        if isinstance(m, (nn.BatchNorm1d, nn.InstanceNorm1d)):
            return [(4, m.num_features)]
        if isinstance(m, (nn.BatchNorm2d, nn.InstanceNorm2d)):
            return [(2, m.num_features, 4, 4)]
        if isinstance(m, nn.GroupNorm):
            return [(2, m.num_channels, 4)]
        if isinstance(m, nn.MultiheadAttention):
            return [(2, 3, m.embed_dim)]
    return []


def _dtype_error(message: str) -> bool:
    return any(w in message for w in ("dtype", "Double", "double", "Float", "scalar type"))


def find_shapes(module, spec: dict, run) -> tuple[list | None, str, str]:
    """(a shape per parameter such that the original runs, or None; the dtype, "float64" or else "float32"; what
    was tried when nothing worked). float32 (the module left as built) is tried only when some float64 attempt
    failed on a dtype mismatch (a forward that multiplies its input with a float32 tensor it creates).

    `run(spec, shapes)` calls the original's entry on synthesised inputs of `shapes` and raises when it does not."""
    known = [s for _, s in spec["params"]]
    if spec["cls"]:
        try:
            seed_all(SYNTH_SEED)
            instance = resolve(module, spec["cls"])()
        except BaseException as e:
            return None, "", f"{spec['cls']}() cannot be built without arguments: {one_line(e)}"
        hints = _hinted_shapes(instance)
    else:
        hints = []
    if all(s is not None for s in known):
        candidates = [None]
    else:
        candidates = list(dict.fromkeys(hints + COMMON_SHAPES))
    last, first_last = "", ""
    for dtype in ("float64", "float32"):
        dtype_errors = False
        for shape in candidates:
            shapes = [list(s) if s is not None else list(shape) for s in known]
            try:
                run(dict(spec, dtype=dtype), shapes)
                return shapes, dtype, ""
            except BaseException as e:
                last = one_line(e)
                dtype_errors = dtype_errors or _dtype_error(last)
        first_last = first_last or last
        if not dtype_errors:
            break
    tried = "the annotated shapes" if candidates == [None] else f"{len(candidates)} common shapes"
    also = f"; in float32 too, last error: {last}" if last != first_last else ""
    return None, "", (f"the original does not run on synthesised float64 inputs ({tried}; last error: {first_last}"
                      f"{also})")


def one_line(e: BaseException) -> str:
    """`Type: message` on one line, at most 300 characters."""
    text = collapse(e)
    if len(text) > 300:
        text = text[:297] + "..."
    return f"{type(e).__name__}: {text}" if text else type(e).__name__
