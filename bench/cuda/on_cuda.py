"""Run a program with CUDA as torch's default device: `python bench/cuda/on_cuda.py PROGRAM [ARGS...]`.

Used to run tests/trace_programs/*.py on the GPU without editing them (`fixinplace trace bench/cuda/on_cuda.py
tests/trace_programs/gan.py`): the program's tensors, modules and optimizers land on CUDA, so fused and foreach
optimizer steps take their CUDA kernels. The program runs as `__main__` with sys.argv[0] set to its path.

With FIXINPLACE_BENCH_SAFE_USER_FRAME=1 in the environment, and when it runs under the tracer, it first replaces
`fixinplace.trace.tracer.user_frame` by a version that returns None instead of raising ValueError when the stack
is shallower than the depth asked for. This is a measurement aid only (fixinplace/ is not edited): the first GPU
run showed that on CUDA the backward's unpack hooks run on autograd's device thread, whose Python stack is too
shallow for `sys._getframe(3)`, so `user_frame(3)` in `Tracer._report` raises `ValueError: call stack is not deep
enough`; with the replacement the tracer falls back to `backward_frame` as it does when user_frame returns None.
"""

import os
import runpy
import sys

import torch

if os.environ.get("FIXINPLACE_BENCH_SAFE_USER_FRAME") == "1" and "fixinplace.trace.tracer" in sys.modules:
    import fixinplace.trace.tracer as _tracer

    _orig = _tracer.user_frame

    def _safe_user_frame(depth=2):
        try:
            return _orig(depth + 1)  # one frame more: this wrapper
        except ValueError:
            return None

    _tracer.user_frame = _safe_user_frame
    print("on_cuda.py: fixinplace.trace.tracer.user_frame made safe on shallow stacks", file=sys.stderr)

torch.set_default_device("cuda" if torch.cuda.is_available() else "cpu")
program = sys.argv[1]
sys.argv = sys.argv[1:]
runpy.run_path(program, run_name="__main__")
