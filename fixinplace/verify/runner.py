"""Running the verification jobs in a child process (`python -m fixinplace.verify.child`), with a timeout per job.

The parent never imports torch nor the user's code. All jobs go to one child (torch is imported once); each job has
`timeout` seconds from the moment the previous one finished (the first from the moment torch is imported). A job
that runs past it, or a child that dies, is reported `failed` for that job; the child is then killed and a fresh
one runs the remaining jobs.

The child's jobs each run in a runner forked by the judge, which decides the results (`remote`, `child`). Containment
(`keeper`, `cgroup`; docs/reliability.md says what is used where):

- no process the user code started is left running, on Linux even one that started a session of its own or
  daemonised, also after a timeout, a crash, or a kill of the process group or of the runner's parent: the
  child's keeper is the init of a PID namespace (or a subreaper), and the child is in a cgroup killed at the end
  where one can be made; results are voided when the keeper is found dead;
- each process of the user code has at most `memory` bytes of private memory (RLIMIT_DATA), and shared mappings
  count too under a cgroup's memory.max or the runners' RLIMIT_AS where these can be used; a result that ran out
  of it says so;
- what the child prints is kept only in part (a head and a tail, `capture`);
- the user code runs in a fresh temporary working directory, removed afterwards, not in the caller's.
"""

from __future__ import annotations

import json
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

from fixinplace.verify import cgroup
from fixinplace.verify.capture import Capped
from fixinplace.verify.tree import kill_tree

DEFAULT_TIMEOUT = 60.0
STARTUP_GRACE = 120.0  # importing torch (cold caches) is not the user's code: it gets its own allowance
MIN_MEMORY = 512 * 2**20  # importing torch alone takes about 300 MiB


def _physical_memory() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None


_physical = _physical_memory()
DEFAULT_MEMORY = max(_physical // 2, MIN_MEMORY) if _physical else None  # half the machine's memory

# How running out of memory reads in a result or on the child's stderr (not CUDA's OutOfMemoryError: the GPU's
# memory is not capped).
_OUT_OF_MEMORY = re.compile(r"\bMemoryError\b|can't allocate memory|Cannot allocate memory|std::bad_alloc")


def size_text(n: int) -> str:
    """`12 GiB`, `512 MiB`: a size in bytes for messages."""
    for unit, scale in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.3g} {unit}"
    return f"{n} B"


def with_memory_cap(reason: str, memory: int | None, clue: str = "") -> str:
    """`reason`, prefixed with what the memory cap did when it (or `clue`, the child's last words) says the user
    code ran out of memory under it."""
    if memory and _OUT_OF_MEMORY.search(reason + "\n" + clue):
        return f"the user code ran out of memory under the verify cap of {size_text(memory)} (--memory): {reason}"
    return reason


def _blank(status: str, reason: str, device: str, reference: str = "original") -> dict:
    return {"device": device, "status": status, "reason": reason, "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
            "reference": reference}


def _device_rows(job: dict, status: str, reason: str) -> list[dict]:
    devices = [d for d in job["devices"] if d != "all"] or ["cpu"]
    return [_blank(status, reason, d) for d in devices]


def _launcher() -> list[str]:
    """The interpreter command that runs the child: `python`, or `FIXINPLACE_VERIFY_LAUNCHER` (a command line
    that runs `python ARGS` its own way; the tests' fork server, whose processes have imported torch already)."""
    custom = os.environ.get("FIXINPLACE_VERIFY_LAUNCHER", "")
    return shlex.split(custom) if custom else [sys.executable]


def _child_env() -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def run_jobs(jobs: list[dict], timeout: float = DEFAULT_TIMEOUT, memory: int | None = DEFAULT_MEMORY) -> dict:
    """{job id: [result per device]} for every job (never raises for what the user code does); `memory`: the cap on
    each user process's private memory in bytes (None: no cap)."""
    # The child runs in a temporary folder: the paths it is given must not depend on the working directory.
    jobs = [dict(j, path=os.path.abspath(j["path"]), root=os.path.abspath(j["root"]) if j.get("root") else "")
            for j in jobs]
    results: dict = {}
    pending = list(jobs)
    while pending:
        done = _run_batch(pending, timeout, memory, results)
        pending = [j for j in pending if j["id"] not in results]
        if not done and pending and pending[0]["id"] not in results:  # pragma: no cover - defensive
            for j in pending:
                results[j["id"]] = _device_rows(j, "failed", "the verification process stopped")
            break
    return results


KEEPER_KILLED = ("the user code killed verify's keeper process, so processes it started may have outlived the run: "
                 "no result of this run can be trusted")


def _run_batch(jobs: list[dict], timeout: float, memory: int | None, results: dict) -> bool:
    """Run `jobs` in one child until they are done or one fails hard; False when the child gave nothing."""
    workdir = tempfile.mkdtemp(prefix="fixinplace-verify-")
    group = cgroup.create(memory)
    try:
        proc = subprocess.Popen(
            [*_launcher(), "-m", "fixinplace.verify.child"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=_child_env(), cwd=workdir, start_new_session=True,
        )
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        if group:
            group.kill()
        raise
    lines: "queue.Queue[bytes | None]" = queue.Queue()
    threading.Thread(target=_lines, args=(proc.stdout, lines), daemon=True).start()
    errors = Capped(proc.stderr)  # the user code's prints: only a bounded head and tail are kept
    try:
        request = {"jobs": jobs, "memory": memory, "cwd": os.getcwd(), "cgroup": group.path if group else "",
                   "memory_cgroup": bool(group and group.memory)}
        proc.stdin.write(json.dumps(request).encode() + b"\n")
        proc.stdin.flush()  # left open: the child waits for it to close once it is done
    except (BrokenPipeError, OSError):
        pass
    batch: list = []  # the ids this child gave results for: void if its keeper is found dead at the end
    index = 0
    ready = False
    try:
        while index < len(jobs):
            job = jobs[index]
            try:
                line = lines.get(timeout=timeout if ready else max(timeout, STARTUP_GRACE))
            except queue.Empty:
                if not ready:
                    reason = f"the verification process did not start within {max(timeout, STARTUP_GRACE):g} s"
                    for j in jobs[index:]:
                        results[j["id"]] = _device_rows(j, "failed", reason)
                    return True
                results[job["id"]] = _device_rows(
                    job, "failed", f"timed out after {timeout:g} s (the user code hangs or is too slow; --timeout)")
                return True
            if line is None:  # the child died (a signal, or the user code killed it)
                try:
                    proc.wait(timeout=5)
                except subprocess.TimeoutExpired:  # pragma: no cover - killed below
                    pass
                why = _died(f"the verification process exited with code {proc.returncode}", errors, memory, group)
                if not ready:
                    for j in jobs[index:]:
                        results[j["id"]] = _device_rows(j, "failed", why)
                    return True
                results[job["id"]] = _device_rows(job, "failed", why + " while running this code")
                return True
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if "ready" in message:
                ready = True
                if not message["ready"]:
                    reason = with_memory_cap(message.get("error", "torch is not available"), memory)
                    for j in jobs[index:]:
                        results[j["id"]] = _device_rows(j, "skipped", reason)
                    return True
                continue
            if message.get("job") == job["id"]:
                if "exited" in message:  # the user code ended its runner; the child goes on with the next job
                    why = _died(f"the verification process exited with code {message['exited']}", errors, memory,
                                group)
                    results[job["id"]] = _device_rows(job, "failed", why + " while running this code")
                else:
                    results[job["id"]] = message["results"]
                batch.append(job["id"])
                index += 1
        try:
            done = lines.get(timeout=10) or b""
        except queue.Empty:
            done = b""
        # The keeper runs no user code and outlives the worker: dead now, it was killed from inside.
        if b'"done"' not in done or proc.poll() is not None:
            for job_id in batch:
                results[job_id] = [dict(r, status="failed", reason=KEEPER_KILLED) for r in results[job_id]]
        return bool(batch)
    finally:
        _stop(proc, group)
        shutil.rmtree(workdir, ignore_errors=True)


def _lines(stream, lines: "queue.Queue[bytes | None]") -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _died(why: str, errors: Capped, memory: int | None, group) -> str:
    """Why a process ended, with the last line it printed and what the memory cap did."""
    errors.join(timeout=0.5)  # its last lines say why
    tail = errors.text().strip().splitlines()
    if tail:
        why += f": {tail[-1][:200]}"
    if group is not None and group.out_of_memory():
        tail.append("MemoryError: the cgroup's memory.max was reached")
    return with_memory_cap(why, memory, clue="\n".join(tail[-20:]))


def _stop(proc: subprocess.Popen, group) -> None:
    """Kill the child and every process under it (its cgroup, when it has one), then reap the child."""
    try:
        proc.stdin.close()
    except OSError:
        pass
    if group is not None:
        group.kill()
    if proc.poll() is None:
        kill_tree(proc.pid)
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child runs in its own session (all there is off Linux)
        except (ProcessLookupError, PermissionError, OSError):
            proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
