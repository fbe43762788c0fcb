"""The child process of `fixinplace verify`: the only place where user code runs and torch is imported.

Protocol: one JSON object on stdin, `{"jobs": [{"id", "path", "original", "patched", "entry", "inputs",
"devices", "synth", "fallback", "root"}], "memory": bytes or null, "cwd": the caller's working directory}` (paths
absolute: this process runs in a temporary folder); on stdout one JSON line `{"ready": true, "cuda": bool}` (or
`{"ready": false, "error": str}`), then per job, in order, `{"job": id, "results": [{"device", "status", "reason",
"max_abs_diff", "reference"}]}`. Whatever the user code prints goes to stderr, so it cannot corrupt the protocol.

On Linux this process is a *keeper*: a subreaper that forks the worker, which runs the jobs, and runs no user code
itself; see `fixinplace.verify.runner` for what that guarantees.
"""

from __future__ import annotations

import json
import os
import signal
import sys

from fixinplace.verify.runner import kill_tree, with_memory_cap

PR_SET_CHILD_SUBREAPER = 36  # <linux/prctl.h>


def _subreaper() -> bool:
    """Whether this process is now the subreaper of its descendants (Linux): orphans re-parent to it, not to init."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _keep() -> None:
    """Fork (Linux): returns in the worker. The keeper stays the subreaper of everything the worker starts (the
    flag is not inherited), and when the worker ends, kills what is left and exits as the worker did."""
    if not _subreaper():
        return
    worker = os.fork()
    if worker == 0:
        return
    # The keeper holds no end of the parent's pipes: the parent sees them close when the worker dies.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        pid, status = os.wait()  # also reaps the orphans that re-parent here meanwhile
        if pid == worker:
            break
    kill_tree(os.getpid(), include_root=False)
    while True:
        try:
            os.wait()
        except ChildProcessError:
            break
    code = os.waitstatus_to_exitcode(status)
    if code < 0:  # die of the worker's signal, so that the parent reports it as before
        import resource

        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    os._exit(code & 0xFF)


def _cap_memory(memory: int | None) -> None:
    """Cap the private memory of this process and of those it starts at `memory` bytes (None: no cap)."""
    if not memory:
        return
    try:
        import resource

        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            memory = min(memory, hard)
        # Hard too, so that the user code cannot lift it. RLIMIT_DATA, not RLIMIT_AS: CUDA reserves (without
        # using) more address space than most machines have memory.
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    except (ImportError, ValueError, OSError):  # pragma: no cover - not POSIX
        pass


def main() -> int:
    _keep()
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(obj) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    request = json.loads(sys.stdin.read())
    memory = request.get("memory")
    _cap_memory(memory)  # before torch: what it allocates counts too
    # `-m` put the working directory (the temporary one) first on sys.path: the caller's takes its place, so that
    # `MODULE:NAME` factories import as when the child ran there.
    if request.get("cwd") and sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = request["cwd"]
    try:
        import torch
    except BaseException as e:
        emit({"ready": False, "error": f"cannot import torch: {type(e).__name__}: {e}"})
        return 0
    cuda = bool(torch.cuda.is_available())
    emit({"ready": True, "cuda": cuda})
    from fixinplace.verify.job import verify_job

    for job in request["jobs"]:
        devices = []
        for device in job["devices"]:
            if device == "all":
                devices.extend(["cpu", "cuda"] if cuda else ["cpu"])
            else:
                devices.append(device)
        folder = os.path.dirname(os.path.abspath(job["path"]))
        # The user's sibling modules import as when run as a script; `MODULE:NAME` factories from the project root.
        added = [f for f in (folder, job.get("root") or "") if f and f not in sys.path]
        for f in reversed(added):
            sys.path.insert(0, f)
        results = []
        try:
            for device in devices:
                try:
                    result = verify_job(job, device, cuda)
                except BaseException as e:  # a bug here must still give a result
                    result = {"status": "failed", "reason": f"verification error: {type(e).__name__}: {e}",
                              "max_abs_diff": {"outputs": 0.0, "grads": 0.0}, "reference": "original"}
                result["reason"] = with_memory_cap(result["reason"], memory)
                result["device"] = device
                results.append(result)
        finally:
            for f in added:
                if f in sys.path:
                    sys.path.remove(f)
        emit({"job": job["id"], "results": results})
    return 0


if __name__ == "__main__":
    sys.exit(main())
