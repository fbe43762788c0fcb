"""Running the verification jobs in a child process (`python -m fixinplace.verify.child`), with a timeout per job.

The parent never imports torch nor the user's code. All jobs go to one child (torch is imported once); each job has
`timeout` seconds from the moment the previous one finished (the first from the moment torch is imported). A job
that runs past it, or a child that dies, is reported `failed` for that job; the child is then killed and a fresh
one runs the remaining jobs.
"""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading

DEFAULT_TIMEOUT = 60.0
STARTUP_GRACE = 120.0  # importing torch (cold caches) is not the user's code: it gets its own allowance


def _blank(status: str, reason: str, device: str, reference: str = "original") -> dict:
    return {"device": device, "status": status, "reason": reason, "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
            "reference": reference}


def _device_rows(job: dict, status: str, reason: str) -> list[dict]:
    devices = [d for d in job["devices"] if d != "all"] or ["cpu"]
    return [_blank(status, reason, d) for d in devices]


def _child_env() -> dict:
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def _reader(stream, lines: "queue.Queue[str | None]") -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def run_jobs(jobs: list[dict], timeout: float = DEFAULT_TIMEOUT) -> dict:
    """{job id: [result per device]} for every job (never raises for what the user code does)."""
    results: dict = {}
    pending = list(jobs)
    while pending:
        done = _run_batch(pending, timeout, results)
        pending = [j for j in pending if j["id"] not in results]
        if not done and pending and pending[0]["id"] not in results:  # pragma: no cover - defensive
            for j in pending:
                results[j["id"]] = _device_rows(j, "failed", "the verification process stopped")
            break
    return results


def _run_batch(jobs: list[dict], timeout: float, results: dict) -> bool:
    """Run `jobs` in one child until they are done or one fails hard; False when the child gave nothing."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "fixinplace.verify.child"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, encoding="utf-8", errors="replace", env=_child_env(), cwd=os.getcwd(),
        start_new_session=True,
    )
    lines: "queue.Queue[str | None]" = queue.Queue()
    errors: list[str] = []
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    threading.Thread(target=lambda: errors.extend(proc.stderr), daemon=True).start()
    try:
        proc.stdin.write(json.dumps({"jobs": jobs}))
        proc.stdin.close()
    except (BrokenPipeError, OSError):
        pass
    progressed = False
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
            if line is None:  # the child died (a crash in user code, os._exit, a signal)
                proc.wait(timeout=5)
                tail = "".join(errors[-3:]).strip().splitlines()[-1:] if errors else []
                why = f"the verification process exited with code {proc.returncode}"
                if tail:
                    why += f": {tail[0][:200]}"
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
                    for j in jobs[index:]:
                        results[j["id"]] = _device_rows(j, "skipped", message.get("error", "torch is not available"))
                    return True
                continue
            if message.get("job") == job["id"]:
                results[job["id"]] = message["results"]
                index += 1
                progressed = True
        return progressed
    finally:
        _stop(proc)


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, 9)  # the child runs in its own session: its own children go too
        except (ProcessLookupError, PermissionError, OSError):
            proc.kill()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        pass
