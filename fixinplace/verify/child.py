"""The child process of `fixinplace verify`: the only place where torch is imported and user code runs.

Protocol: one JSON line on stdin, `{"jobs": [{"id", "path", "original", "patched", "entry", "inputs", "devices",
"synth", "fallback", "root"}], "memory": bytes or null, "memory_cgroup": bool, "cgroup": path or "", "cwd": the
caller's working directory}` (paths absolute: this process runs in a temporary folder); on stdout one JSON line
`{"ready": true}` (or `{"ready": false, "error": str}`), then per job, in order, `{"job": id, "results":
[{"device", "status", "reason", "max_abs_diff", "reference"}]}` or `{"job": id, "exited": code}` (the user code
ended its runner), and last `{"done": true}`, after which it waits for stdin to close.

Processes: a keeper (`keeper`), under it the judge (this module's `main`), which imports torch, never loads user
code, and forks one runner per job (`remote`) for the steps that run user code, and one runner for the CUDA steps of
all jobs (a CUDA context per process is costly; it is reset between jobs and replaced when user code ends it); the
judge compares what they send back (`job`). Whatever the user code prints goes to stderr; it never holds the end of stdout.
"""

from __future__ import annotations

import json
import os
import resource
import sys

from fixinplace.verify.keeper import contain, join_cgroup
from fixinplace.verify.runner import with_memory_cap


def _cap_memory(memory: int | None) -> None:
    """Cap the private memory of this process and of those it starts at `memory` bytes (None: no cap)."""
    if not memory:
        return
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_DATA)
        if hard != resource.RLIM_INFINITY:
            memory = min(memory, hard)
        # Hard too, so that the user code cannot lift it. RLIMIT_DATA, not RLIMIT_AS: CUDA reserves (without
        # using) more address space than most machines have memory.
        resource.setrlimit(resource.RLIMIT_DATA, (memory, memory))
    except (ValueError, OSError):  # pragma: no cover
        pass


def _address_space_cap(memory: int | None, by_cgroup: bool):
    """What a runner does before user code to cap shared mappings too, which RLIMIT_DATA does not count: nothing
    when a cgroup's memory.max does it, or on a machine with an NVIDIA driver (CUDA reserves huge address space);
    else RLIMIT_AS at the address space the runner has (torch imported) plus `memory`."""
    if not memory or by_cgroup or os.path.exists("/dev/nvidiactl"):
        return None

    def setup() -> None:
        try:
            with open("/proc/self/status") as f:
                size = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmSize:"))
            resource.setrlimit(resource.RLIMIT_AS, (size + memory, size + memory))
        except (OSError, ValueError, StopIteration):
            pass

    return setup


def wants_cuda(jobs: list[dict]) -> bool:
    """Whether a job may run on CUDA on this machine (it asks for `cuda` or `all`, and an NVIDIA driver is
    there). The CUDA driver fails in a PID namespace whose /proc is the host's ("cudaGetDeviceCount(): Error 304:
    OS call failed", measured on an H200): such a child's keeper is a subreaper instead."""
    if not os.path.exists("/dev/nvidiactl"):
        return False
    return any(device in ("cuda", "all") for job in jobs for device in job["devices"])


def _devices(job: dict, cuda) -> list[str]:
    devices = []
    for device in job["devices"]:
        if device == "all":
            devices.extend(["cpu", "cuda"] if cuda() else ["cpu"])
        else:
            devices.append(device)
    return devices


def _failed(reason: str) -> dict:
    return {"status": "failed", "reason": reason, "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
            "reference": "original"}


def _run_job(job: dict, memory: int | None, runner_for, cuda) -> dict:
    """The message for one job, judged here from the steps its runners run (`runner_for(device)`)."""
    from fixinplace.verify import wire  # deferred: torch, imported only once the memory cap is set (see main)
    from fixinplace.verify.job import verify_job  # deferred: torch, imported only once the memory cap is set
    from fixinplace.verify.remote import RunnerDied  # deferred: torch, imported only once the memory cap is set

    results = []
    try:
        devices = _devices(job, cuda)
    except BaseException as e:
        devices, results = [], [_failed(f"verification error: {type(e).__name__}: {e}")]
    for device in devices:
        runner = None
        try:
            runner = runner_for(device)
            result = verify_job(job, device, cuda() if device == "cuda" else False, runner.call)
        except BaseException as e:  # a bug here must still give a result
            result = _failed(f"verification error: {type(e).__name__}: {e}")
        failure = getattr(runner, "failure", None)
        if isinstance(failure, RunnerDied):  # whatever was concluded, the user code ended the run
            return {"job": job["id"], "exited": failure.code}
        if isinstance(failure, wire.Tampered):
            result = _failed(f"the user code wrote to verify's results channel ({failure}): not judged")
        result["reason"] = with_memory_cap(result["reason"], memory)
        result["device"] = device
        results.append(result)
    return {"job": job["id"], "results": results}


def main() -> int:
    request = json.loads(sys.stdin.buffer.readline())
    if request.get("cgroup"):
        join_cgroup(request["cgroup"])
    contain(pid_namespace=not wants_cuda(request["jobs"]))
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(obj) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    memory = request.get("memory")
    _cap_memory(memory)  # before torch: what it allocates counts too
    # `-m` put the working directory (the temporary one) first on sys.path: the caller's takes its place, so that
    # `MODULE:NAME` factories import as when the child ran there.
    if request.get("cwd") and sys.path and sys.path[0] in ("", os.getcwd()):
        sys.path[0] = request["cwd"]
    try:
        import torch  # noqa: F401  # deferred: torch, imported after the memory cap (what it allocates counts)
        from fixinplace.verify import (  # deferred: torch's users, after the memory cap, once before the runners fork
            job as _job, remote, steps)  # noqa: F401
    except BaseException as e:
        emit({"ready": False, "error": f"cannot import torch: {type(e).__name__}: {e}"})
        return 0
    emit({"ready": True})
    setup = _address_space_cap(memory, bool(request.get("memory_cgroup")))
    known: list = []
    # The CUDA steps of every job run in one runner, made afresh only when user code ended it: each new process
    # pays for its own CUDA context (about 5 s a job on an H200, where the CPU steps take a fraction of a second).
    # Between jobs it forgets the previous job's modules and resets torch's global switches (`steps.enter_job`).
    shared: list = []

    for job in request["jobs"]:
        folder = os.path.dirname(os.path.abspath(job["path"]))
        # The user's sibling modules import as when run as a script; `MODULE:NAME` factories from the project root.
        added = [f for f in (folder, job.get("root") or "") if f and f not in sys.path]
        saved_path = list(sys.path)
        sys.path[:0] = added
        entered: list = []
        with remote.Runner(keep_closed=(proto.fileno(),), setup=setup) as runner:

            def cuda() -> bool:
                # Asked in a runner: the judge never initialises CUDA, so that its forks can use it.
                if not known:
                    known.append(bool(runner.call("cuda_available")))
                return known[0]

            def runner_for(device: str):
                if device != "cuda":
                    return runner
                if shared and shared[0].failure is not None:
                    shared.pop().close()
                if not shared:
                    shared.append(remote.Runner(keep_closed=(proto.fileno(),), setup=setup))
                if not entered:
                    entered.append(True)
                    shared[0].call("enter_job", list(sys.path), added)
                return shared[0]

            message = _run_job(job, memory, runner_for, cuda)
        sys.path[:] = saved_path
        emit(message)
    for runner in shared:
        runner.close()
    emit({"done": True})
    sys.stdin.buffer.read()  # until the parent closes it, having checked that the keeper is alive
    return 0


if __name__ == "__main__":
    sys.exit(main())
