"""The steps that run user code, each called in a job's runner (`fixinplace.verify.remote`) by the judge.

Each takes and returns plain data (a job dict, strings, tensors, `Side`s): what it returns goes back through
`fixinplace.verify.wire`. None of them decides a result; the judge does (`fixinplace.verify.job`).
"""

from __future__ import annotations

import contextlib
import os
import sys

import torch

from fixinplace.verify.inputs import find_shapes, one_line, seed_all, synth_call
from fixinplace.verify.overlay import forget_modules
from fixinplace.verify.reference import (LEAF_ERROR, directional_differences, finite_differences, load_original,
                                         on_device, run_side, saved_tensor_copies)

__all__ = ["cuda_available", "directional_differences", "enter_job", "finite_differences", "prepare_shapes",
           "run_side"]

# What a runner shared by several jobs (`child`: the CUDA runner) held when it started, to return to between jobs.
_start: dict = {}


def cuda_available() -> bool:
    """Whether CUDA is available (asked in a runner: the judge never initialises CUDA, so that it can fork)."""
    return bool(torch.cuda.is_available())


def prepare_shapes(job: dict, device: str) -> tuple[list | None, str, str]:
    """(shapes, dtype, why not): the synthesised input shapes on which the original runs (with private copies of
    its saved tensors, else as it is, else under no_grad when it writes a leaf); shapes None when none."""
    try:
        module, entry = load_original(job, device, "original_shapes")
    except BaseException as e:
        return None, "", f"the original module cannot be loaded: {one_line(e)}"

    def run(spec: dict, shapes: list) -> None:
        """Raises the first error when the forward runs neither with private copies of its saved tensors, nor as
        it is (code that refuses saved-tensor hooks), nor under no_grad (a leaf written in place: the hazard)."""
        first = None
        for wrap in (saved_tensor_copies, contextlib.nullcontext, torch.no_grad):
            try:
                with wrap():
                    args = synth_call(module, spec, shapes).args
                    seed_all()
                    entry(*args)
                return
            except Exception as e:
                first = first or e
                if wrap is contextlib.nullcontext and LEAF_ERROR not in str(e) and "view of a leaf" not in str(e):
                    break
        raise first

    with on_device(device):
        return find_shapes(module, job["synth"], run)


def enter_job(path: list[str], folders: list[str]) -> None:
    """Start a job in a runner that ran others before (the CUDA runner, shared because each new process pays for a
    CUDA context): `sys.path` as the judge has it for this job; the modules loaded from the previous job's
    `folders` (and verify's own module objects) forgotten, so that a sibling `helpers.py` of this job is imported
    afresh; torch's global switches that user code may flip (default dtype, grad mode, anomaly mode) and the
    working directory as when the runner started."""
    if not _start:
        _start.update(cwd=os.getcwd(), dtype=torch.get_default_dtype(), folders=[])
    for name in [name for name in sys.modules if name.startswith("_fixinplace_verify_")]:
        del sys.modules[name]
    forget_modules(_start["folders"])
    _start["folders"] = [os.path.abspath(f) for f in folders if f]
    sys.path[:] = path
    os.chdir(_start["cwd"])
    torch.set_default_dtype(_start["dtype"])
    torch.set_grad_enabled(True)
    torch.autograd.set_detect_anomaly(False)
