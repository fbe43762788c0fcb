"""Comparing what two runs produced (runs in the child process: imports torch).

A run's result is flattened into `{path: (kind, value)}` where `kind` is "outputs", "grads" or "effects": every
tensor the entry returned (nested tuples/lists/dicts, nn.Module parameters and buffers) is an output; the `.grad` of
every leaf tensor found there, and every value under a dict key containing "grad", is a gradient; the state of
an argument after the call (see `reference`) is an effect. Tensors are snapshotted
(detached, cloned, moved to CPU) as soon as the run ends, so later runs cannot change them.
"""

from __future__ import annotations

import math

import torch

MAX_DEPTH = 12

# (rtol, atol) per dtype; float16/bfloat16 as torch.testing; loosened on CUDA (nondeterministic reductions).
_TOLERANCES = {
    torch.float64: (1e-7, 1e-7),
    torch.complex128: (1e-7, 1e-7),
    torch.float32: (1.3e-6, 1e-5),
    torch.complex64: (1.3e-6, 1e-5),
    torch.float16: (1e-3, 1e-5),
    torch.bfloat16: (1.6e-2, 1e-5),
}
CUDA_FACTOR = 10.0


def tolerance(dtype: torch.dtype, device: str) -> tuple[float, float]:
    rtol, atol = _TOLERANCES.get(dtype, (1.3e-6, 1e-5))
    if device == "cuda":
        rtol, atol = rtol * CUDA_FACTOR, atol * CUDA_FACTOR
    return rtol, atol


# Captured when this module is imported (in the judge, before any user code): a program that replaces
# `torch.Tensor.clone` or `detach` cannot change the snapshots of its own or the other side's results.
_TensorBase = torch._C.TensorBase
_detach, _clone, _cpu = _TensorBase.detach, _TensorBase.clone, _TensorBase.cpu
_no_subclass_dispatch = torch._C.DisableTorchFunctionSubclass


def _snap(t: torch.Tensor) -> torch.Tensor:
    with _no_subclass_dispatch():
        return _cpu(_clone(_detach(t)))


def flatten(obj, prefix: str = "result", kind: str = "outputs", out: dict | None = None, depth: int = 0) -> dict:
    """`{path: (kind, snapshot)}` for everything comparable in `obj`."""
    if out is None:
        out = {}
    if depth > MAX_DEPTH:
        out[prefix] = (kind, f"<too deep: {type(obj).__name__}>")
        return out
    if isinstance(obj, torch.Tensor):
        out[prefix] = (kind, _snap(obj))
        if obj.is_leaf and obj.grad is not None:
            out[prefix + ".grad"] = ("grads", _snap(obj.grad))
    elif isinstance(obj, torch.nn.Module):
        for name, p in obj.named_parameters():
            flatten(p, f"{prefix}.{name}", kind, out, depth + 1)
        for name, b in obj.named_buffers():
            flatten(b, f"{prefix}.{name}", kind, out, depth + 1)
    elif isinstance(obj, dict):
        for key, value in obj.items():
            sub = "grads" if "grad" in str(key) else kind
            flatten(value, f"{prefix}[{key!r}]", sub, out, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for i, value in enumerate(obj):
            flatten(value, f"{prefix}[{i}]", kind, out, depth + 1)
    elif obj is None or isinstance(obj, (bool, int, float, complex, str)):
        out[prefix] = (kind, obj)
    else:
        out[prefix] = (kind, f"<{type(obj).__name__}>")
    return out


def _diff_tensors(a: torch.Tensor, b: torch.Tensor, device: str,
                  tolerances: tuple[float, float] | None = None) -> tuple[bool, float, str]:
    """(close, max abs diff, why not) for two snapshots."""
    if a.dtype != b.dtype:
        return False, math.inf, f"dtype {b.dtype} != reference {a.dtype}"
    if a.shape != b.shape:
        return False, math.inf, f"shape {tuple(b.shape)} != reference {tuple(a.shape)}"
    if a.numel() == 0:
        return True, 0.0, ""
    if a.is_floating_point() or a.is_complex():
        x, y = a.to(torch.complex128 if a.is_complex() else torch.float64), b.to(
            torch.complex128 if a.is_complex() else torch.float64)
        both_nan = torch.isnan(x) & torch.isnan(y)
        d = (x - y).abs()
        d = torch.where(both_nan, torch.zeros_like(d), d)
        if torch.isnan(d).any():
            return False, math.inf, "NaN where the reference has a number (or the reverse)"
        inf_same = torch.isinf(x) & (x == y)
        d = torch.where(inf_same, torch.zeros_like(d), d)
        maxd = float(d.max())
        rtol, atol = tolerances or tolerance(a.dtype, device)
        ok = bool(torch.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True))
        return ok, maxd, "" if ok else f"values differ (max abs diff {maxd:.3g}, rtol {rtol:g}, atol {atol:g})"
    equal = bool(torch.equal(a, b))
    maxd = 0.0 if equal else float((a.to(torch.float64) - b.to(torch.float64)).abs().max())
    return equal, maxd, "" if equal else f"values differ (max abs diff {maxd:.3g})"


def _zero(entry) -> bool:
    kind, value = entry
    return kind == "grads" and isinstance(value, torch.Tensor) and not bool((value != 0).any())


def compare(reference: dict, patched: dict, device: str,
            tolerances: tuple[float, float] | None = None) -> tuple[bool, str, dict]:
    """(all close, first reason, {"outputs", "grads", "effects": max diff}) of two flattened results.

    A gradient of zeros on one side and none on the other are the same (an overwritten tensor's gradient is None
    after an out-of-place rewrite, zeros in place); `tolerances` (rtol, atol) replaces the per-dtype ones."""
    maxima = {"outputs": 0.0, "grads": 0.0, "effects": 0.0}
    missing = sorted(k for k in set(reference) - set(patched) if not _zero(reference[k]))
    extra = sorted(k for k in set(patched) - set(reference) if not _zero(patched[k]))
    if missing or extra:
        parts = []
        if missing:
            parts.append("missing " + ", ".join(missing[:3]))
        if extra:
            parts.append("extra " + ", ".join(extra[:3]))
        return False, "the patched code returns a different structure: " + "; ".join(parts), maxima
    reasons = []
    for key in sorted(set(reference) & set(patched)):
        kind, a = reference[key]
        _, b = patched[key]
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            ok, d, why = _diff_tensors(a, b, device, tolerances)
            if math.isfinite(d):  # a shape, dtype or NaN mismatch is said in the reason, not as a number
                maxima[kind] = max(maxima[kind], d)
        elif isinstance(a, float) and isinstance(b, float):
            ok = math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9) or (math.isnan(a) and math.isnan(b))
            d = 0.0 if ok and a == b else abs(a - b)
            if math.isfinite(d):
                maxima[kind] = max(maxima[kind], d)
            why = "" if ok else f"{b!r} != reference {a!r}"
        else:
            ok = type(a) is type(b) and a == b
            why = "" if ok else f"{b!r} != reference {a!r}"
        if not ok:
            reasons.append(f"{key}: {why}")
    if reasons:
        more = f" (and {len(reasons) - 1} more)" if len(reasons) > 1 else ""
        return False, reasons[0] + more, maxima
    return True, "", maxima
