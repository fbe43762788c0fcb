"""`fixinplace trace` on tests/trace_programs/*.py, on CPU and with CUDA as the default device, compared.

    python bench/cuda/trace_programs_cuda.py --output trace_programs.json [--programs gan.py,leaf.py]

Each program runs three times through the real command line (`python -m fixinplace trace --format json -o FILE
...`): as it is (`cpu`), through bench/cuda/on_cuda.py (every tensor it makes on CUDA: `cuda`), and the same with
FIXINPLACE_BENCH_SAFE_USER_FRAME=1 (`cuda_safe_frame`: the tracer's `user_frame` made safe on the shallow stack of
autograd's CUDA thread, see on_cuda.py). Recorded per run: exit status,
whether autograd's "modified by an inplace operation" error was printed, and each finding's kind, write op and
line, save op and line, backward line, tensor dtype and versions.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROGRAMS = ROOT / "tests" / "trace_programs"
WHERE = ("cpu", "cuda", "cuda_safe_frame")


def _summary(f: dict) -> dict:
    m, s, b = f.get("mutation") or {}, f.get("saved_by") or {}, f.get("backward") or {}
    return {"kind": f.get("kind"), "write": [m.get("op"), m.get("line")], "saved_by": [s.get("op"), s.get("line")],
            "backward_line": b.get("line"), "tensor": f.get("tensor"), "has_fix": "fix" in f}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--programs", default=None, help="comma-separated file names (default: every program)")
    ns = ap.parse_args()
    only = set(ns.programs.split(",")) if ns.programs else None
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    tmp = Path(tempfile.mkdtemp())
    procs = {}
    for program in sorted(PROGRAMS.glob("*.py")):
        if only is not None and program.name not in only:
            continue
        for where in WHERE:
            out = tmp / f"{program.stem}.{where}.json"
            cmd = [sys.executable, "-m", "fixinplace", "trace", "--format", "json", "-o", str(out)]
            cmd += [str(program)] if where == "cpu" else [str(ROOT / "bench" / "cuda" / "on_cuda.py"), str(program)]
            penv = dict(env, FIXINPLACE_BENCH_SAFE_USER_FRAME="1" if where == "cuda_safe_frame" else "0")
            procs[(program.name, where)] = (subprocess.Popen(cmd, cwd=tmp, env=penv, stdout=subprocess.PIPE,
                                                             stderr=subprocess.PIPE, text=True), out)
    results: dict = {}
    for (name, where), (proc, out) in procs.items():
        _, err = proc.communicate(timeout=300)
        try:
            report = json.loads(out.read_text())
            findings = [_summary(f) for f in report.get("findings", [])]
        except Exception as e:
            findings = f"no report: {e}"
        results.setdefault(name, {})[where] = {
            "returncode": proc.returncode, "autograd_error": "modified by an inplace operation" in err,
            "findings": findings, "stderr_tail": err.strip().splitlines()[-1][:300] if err.strip() else ""}
    same = {}
    strip = lambda fs: [{k: v for k, v in f.items() if k != "tensor"} for f in fs] if isinstance(fs, list) else fs
    for name, r in results.items():
        a = r.get("cpu", {})
        for where in WHERE[1:]:
            b = r.get(where, {})
            same.setdefault(where, {})[name] = \
                (a.get("returncode"), a.get("autograd_error"), strip(a.get("findings"))) == \
                (b.get("returncode"), b.get("autograd_error"), strip(b.get("findings")))
    ns.output.write_text(json.dumps({"results": results, "same_on_cpu_and_cuda": same}, indent=1, sort_keys=True) + "\n")
    for name, r in results.items():
        for where in WHERE:
            x = r[where]
            fs = x["findings"]
            desc = "; ".join(f"{f['kind']} {f['write'][0]}@{f['write'][1]} saved by {f['saved_by'][0]}@"
                             f"{f['saved_by'][1]} (v{f['tensor']['saved_version']}->v{f['tensor']['version']})"
                             for f in fs) if isinstance(fs, list) else fs
            print(f"{name:18s} {where:15s} rc={x['returncode']} autograd_error={x['autograd_error']} "
                  f"findings: {desc or 'none'}" + (f"  [{x['stderr_tail'][:120]}]" if x['returncode'] not in (0, 1)
                                                   or 'Error' in x['stderr_tail'] and not x['autograd_error'] else ""))
        print(f"{name:18s} same as on CPU: " + ", ".join(f"{w}: {same[w][name]}" for w in WHERE[1:]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
