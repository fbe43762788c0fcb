"""The child process of `fixinplace verify`: the only place where user code runs and torch is imported.

Protocol: one JSON object on stdin, `{"jobs": [{"id", "path", "original", "patched", "entry", "inputs",
"devices", "synth", "fallback", "root"}]}`; on stdout one JSON line `{"ready": true, "cuda": bool}` (or `{"ready": false, "error": str}`), then
per job, in order, `{"job": id, "results": [{"device", "status", "reason", "max_abs_diff", "reference"}]}`.
Whatever the user code prints goes to stderr, so it cannot corrupt the protocol.
"""

from __future__ import annotations

import json
import os
import sys


def main() -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def emit(obj) -> None:
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    request = json.loads(sys.stdin.read())
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
