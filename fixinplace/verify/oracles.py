"""References beyond running the original as it is (child process: imports torch).

- `LeafUpdates`: a `TorchFunctionMode` that runs an in-place write, in grad mode, to a leaf tensor that requires
  grad and is not one of the entry's arguments (a parameter, a weight the program creates: an optimizer-style
  update `w -= lr * w.grad`, an initialisation `w.mul_(0.5)`, a clip `self.weight.clamp_(...)`, which raise the
  leaf error) under `torch.no_grad()`: read as an update of state; and an op that writes only because of its
  `inplace` flag (`F.relu(z, inplace=True)`, an `nn.ReLU(inplace=True)` applied to such a leaf) without the flag:
  read as the activation it computes, which autograd differentiates. Writes to leaf arguments are left alone
  (they still raise; the reference for them runs the original on clones of its inputs). With `out_of_place`, the
  other reading, for fixes that compute a new tensor: a write to such a leaf lands on a copy of it, to which the
  name it was written through is bound: an augmented assignment (`coord += agg`, where `coord` is a position tensor
  differentiated for forces) binds the copy as Python binds `+=`'s result; a method call or an index assignment on
  a local name (`x.sub_(mu).div_(sd)`, `flat[:, 0] = 1.0` on a view of an input) rebinds that name in the frame
  that wrote. So the leaf is left as it is and the gradient flows through the copy, as an out-of-place or
  clone-before-write fix computes. A write to a parameter itself (`p -= lr * p.grad` updates the model's state; a
  view of one, as a tied autoencoder's `w_dec = enc.weight.t(); w_dec /= norm`, is computed from it) or to a value
  no name holds cannot be read so: each is counted apart (`unbound`, with why) for the reference to refuse.
- `finite_differences`: central differences in float64 of the summed outputs with respect to every leaf, on the
  original run under `torch.no_grad()` with fresh inputs for each of the 2n calls.
"""

from __future__ import annotations

import ctypes
import dis
import sys

import torch
from torch.overrides import TorchFunctionMode

from fixinplace.trace.mutations import classify

#: Largest number of input elements (leaves and parameters together) for finite differences: 2n forward calls.
FD_MAX_ELEMENTS = 96
FD_STEP = 1e-6
#: Finite differences against autograd: central differences in float64 are accurate to about 1e-8 here.
FD_TOLERANCE = (1e-4, 1e-6)


#: The offsets of the augmented assignments' operators (`x += y`: BINARY_OP `+=` on 3.11 and later, INPLACE_ADD
#: on 3.10), per code object.
_AUGMENTED: dict = {}


def _augmented_at(frame) -> bool:
    """Whether `frame` is running an augmented assignment's operator, whose result Python binds to its target."""
    code = frame.f_code
    offsets = _AUGMENTED.get(code)
    if offsets is None:
        offsets = frozenset(i.offset for i in dis.get_instructions(code) if i.opname.startswith("INPLACE_")
                            or (i.opname == "BINARY_OP" and i.argrepr.endswith("=")))
        if len(_AUGMENTED) < 10_000:
            _AUGMENTED[code] = offsets
    return frame.f_lasti in offsets


def _names_holding(frame, value) -> list[str]:
    """The local names of a frame of user code (not torch's) bound to `value` itself."""
    if frame.f_globals.get("__name__", "").partition(".")[0] == "torch":
        return []
    return [name for name, held in frame.f_locals.items() if held is value]


def _rebind(frame, names: list[str], value) -> None:
    """Bind `names` of `frame` to `value`, as an assignment in that frame would."""
    if not names:
        return
    scope = frame.f_locals
    for name in names:
        scope[name] = value
    if scope is not frame.f_globals and sys.version_info < (3, 13):
        # before PEP 667, a function's f_locals is a snapshot written back by this call (CPython only)
        ctypes.pythonapi.PyFrame_LocalsToFast(ctypes.py_object(frame), ctypes.c_int(0))


class LeafUpdates(TorchFunctionMode):
    """Runs in-place writes to leaves that require grad (other than `arguments`) under `torch.no_grad()`, or with
    `out_of_place` augmented assignments to them as out-of-place ops; counts them."""

    def __init__(self, arguments=(), out_of_place: bool = False) -> None:
        super().__init__()
        self.count = 0
        self.unbound: list[str] = []  # with out_of_place: why a write could not run as a bound out-of-place op
        self.out_of_place = out_of_place
        self.excluded = {id(a) for a in arguments if isinstance(a, torch.Tensor)}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if kwargs.get("inplace") is True and args and self._own_leaf(args[0]) and torch.is_grad_enabled():
            self.count += 1
            return func(*args, **{**kwargs, "inplace": False})
        if args and self._own_leaf(args[0]) and torch.is_grad_enabled():
            name, writes = classify(func)
            if not writes:
                return func(*args, **kwargs)
            self.count += 1
            if self.out_of_place:
                if isinstance(args[0], torch.nn.Parameter):
                    self.unbound.append(f"`{name}` on a parameter itself, an update of state")
                else:
                    # The write lands on a copy, which the name the code wrote through is bound to: `x += y`
                    # (reaching here as `add_` from the user's frame, which binds what it returns), or a method
                    # call or an index assignment on a name of that frame (`x.sub_(m)`, `flat[:, 0] = 1.0`).
                    frame = sys._getframe(1)
                    augmented = _augmented_at(frame)
                    names = [] if augmented else _names_holding(frame, args[0])
                    if augmented or names:
                        copy = args[0].clone()
                        result = func(copy, *args[1:], **kwargs)
                        _rebind(frame, names, copy)
                        return result
                    self.unbound.append(f"`{name}` on a value no name of the code that writes it holds")
            with torch.no_grad():
                return func(*args, **kwargs)
        return func(*args, **kwargs)

    def _own_leaf(self, value) -> bool:
        """A leaf that requires grad (or a view of one), not one of the entry's arguments."""
        if not isinstance(value, torch.Tensor):
            return False
        base = value._base if value._base is not None else value
        return base.is_leaf and base.requires_grad and id(base) not in self.excluded


class DetachCopies(TorchFunctionMode):
    """`.detach()` (and `torch.detach`) return a copy rather than a tensor sharing the storage and version counter:
    the reading of a program that writes through `y.detach()` (a pseudo-label sharpened in place) as writing a
    copy, which is what such code means and what its fixes compute."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if getattr(func, "__name__", "") == "detach" and isinstance(out, torch.Tensor):
            return out.clone()
        return out


def float_outputs(out, depth: int = 0):
    """The floating-point tensors in `out` (nested tuples, lists, dicts), in order."""
    if depth > 12:
        return
    if isinstance(out, torch.Tensor):
        if out.is_floating_point():
            yield out
    elif isinstance(out, dict):
        for v in out.values():
            yield from float_outputs(v, depth + 1)
    elif isinstance(out, (list, tuple)):
        for v in out:
            yield from float_outputs(v, depth + 1)


def summed(out, mask: list[bool] | None) -> float:
    """The sum of the float outputs (those `mask` marks, when given) as a Python float."""
    total = 0.0
    for j, t in enumerate(float_outputs(out)):
        if mask is None or (j < len(mask) and mask[j]):
            total += float(t.detach().to(torch.float64).sum())
    return total


def fd_gradients(evaluate, leaves: list, step: float = FD_STEP) -> list[torch.Tensor]:
    """Central differences: `evaluate(i, k, h)` returns the summed outputs with element k of leaf i moved by h."""
    grads = []
    for i, (_, leaf) in enumerate(leaves):
        g = torch.zeros(leaf.numel(), dtype=torch.float64)
        for k in range(leaf.numel()):
            g[k] = (evaluate(i, k, step) - evaluate(i, k, -step)) / (2 * step)
        grads.append(g.reshape(leaf.shape))
    return grads


def fd_feasible(leaves: list) -> str:
    """"" when finite differences can be taken with respect to `leaves`, else why not."""
    if not leaves:
        return "no input to differentiate"
    if any(t.dtype != torch.float64 for _, t in leaves):
        return "inputs are not all float64"
    n = sum(t.numel() for _, t in leaves)
    if n > FD_MAX_ELEMENTS:
        return f"{n} input elements (more than {FD_MAX_ELEMENTS})"
    return ""
