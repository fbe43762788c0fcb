"""References beyond running the original as it is (child process: imports torch).

- `LeafUpdates`: a `TorchFunctionMode` that runs an in-place write, in grad mode, to a leaf tensor that requires
  grad and is not one of the entry's arguments (a parameter, a weight the program creates: an optimizer-style
  update `w -= lr * w.grad`, an initialisation `w.mul_(0.5)`, a clip `self.weight.clamp_(...)`, which raise the
  leaf error) under `torch.no_grad()`: read as an update of state; and an op that writes only because of its
  `inplace` flag (`F.relu(z, inplace=True)`, an `nn.ReLU(inplace=True)` applied to such a leaf) without the flag:
  read as the activation it computes, which autograd differentiates. Writes to leaf arguments are left alone
  (they still raise; the reference for them runs the original on clones of its inputs). With `out_of_place`, the
  other reading, for fixes that compute a new tensor: an augmented assignment to such a leaf (`coord += agg`,
  where `coord` is a position tensor differentiated for forces) runs as the out-of-place op (`coord + agg`), which
  Python binds to the name as it binds `+=`'s result, so the leaf is left as it is and the gradient flows through
  the new tensor; a write whose result is not bound (`w.add_(v)`, `w[i] = v`) cannot be read so, nor can a write
  to a parameter itself (`p -= lr * p.grad` updates the model's state; a view of one, as a tied autoencoder's
  `w_dec = enc.weight.t(); w_dec /= norm`, is computed from it): each is counted apart (`unbound`, with why) for
  the reference to refuse.
- `finite_differences`: central differences in float64 of the summed outputs with respect to every leaf, on the
  original run under `torch.no_grad()` with fresh inputs for each of the 2n calls.
"""

from __future__ import annotations

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
                # `x += y` reaches here as `add_` called from the user's frame, which binds what it returns
                out_of_place = getattr(torch.Tensor, name[:-1], None) if name.endswith("_") else None
                if isinstance(args[0], torch.nn.Parameter):
                    self.unbound.append(f"`{name}` on a parameter itself, an update of state")
                elif out_of_place is None or not _augmented_at(sys._getframe(1)):
                    self.unbound.append(f"`{name}`, whose result is not bound to a name")
                else:
                    return out_of_place(*args, **kwargs)
            with torch.no_grad():
                return func(*args, **kwargs)
        return func(*args, **kwargs)

    def _own_leaf(self, value) -> bool:
        """A leaf that requires grad (or a view of one), not one of the entry's arguments."""
        if not isinstance(value, torch.Tensor):
            return False
        base = value._base if value._base is not None else value
        return base.is_leaf and base.requires_grad and id(base) not in self.excluded


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
