"""References beyond running the original as it is (child process: imports torch).

- `LeafUpdates`: a `TorchFunctionMode` that runs an in-place write, in grad mode, to a leaf tensor that requires
  grad and is not one of the entry's arguments (a parameter, a weight the program creates: an optimizer-style
  update `w -= lr * w.grad`, an initialisation `w.mul_(0.5)`, a clip `self.weight.clamp_(...)`, which raise the
  leaf error) under `torch.no_grad()`: read as an update of state; and an op that writes only because of its
  `inplace` flag (`F.relu(z, inplace=True)`, an `nn.ReLU(inplace=True)` applied to such a leaf) without the flag:
  read as the activation it computes, which autograd differentiates. Writes to leaf arguments are left alone
  (they still raise; the reference for them runs the original on clones of its inputs).
- `finite_differences`: central differences in float64 of the summed outputs with respect to every leaf, on the
  original run under `torch.no_grad()` with fresh inputs for each of the 2n calls.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode

from fixinplace.trace.mutations import classify

#: Largest number of input elements (leaves and parameters together) for finite differences: 2n forward calls.
FD_MAX_ELEMENTS = 96
FD_STEP = 1e-6
#: Finite differences against autograd: central differences in float64 are accurate to about 1e-8 here.
FD_TOLERANCE = (1e-4, 1e-6)


class LeafUpdates(TorchFunctionMode):
    """Runs in-place writes to leaves that require grad (other than `arguments`) under `torch.no_grad()`; counts
    them."""

    def __init__(self, arguments=()) -> None:
        super().__init__()
        self.count = 0
        self.excluded = {id(a) for a in arguments if isinstance(a, torch.Tensor)}

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if kwargs.get("inplace") is True and args and self._own_leaf(args[0]) and torch.is_grad_enabled():
            self.count += 1
            return func(*args, **{**kwargs, "inplace": False})
        if args and self._own_leaf(args[0]) and torch.is_grad_enabled() and classify(func)[1]:
            self.count += 1
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
