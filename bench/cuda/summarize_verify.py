"""Counts and maxima of `fixinplace verify --format json` reports, per device and status.

    python bench/cuda/summarize_verify.py REPORT.json [REPORT.json ...]

For each report: results per (device, status), per (device, reference), the largest `max_abs_diff` outputs/grads
per device, and every result that is not `verified` (path, function, device, status, reason). With two devices in
one report it also pairs the CPU and CUDA results of each (path, function) and lists where the status differs.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path


def summarize(path: Path) -> list[str]:
    L = [f"## {path.name}"]
    try:
        rows = json.loads(path.read_text())["results"]
    except Exception as e:
        return L + [f"- unreadable: {e}"]
    by_status = Counter((r["device"], r["status"]) for r in rows)
    by_ref = Counter((r["device"], r["reference"]) for r in rows)
    L.append(f"- results: {len(rows)}; by device/status: " + ", ".join(f"{d} {s}: {n}" for (d, s), n in sorted(by_status.items())))
    L.append("- by device/reference: " + ", ".join(f"{d} {s}: {n}" for (d, s), n in sorted(by_ref.items())))
    for dev in sorted({r["device"] for r in rows}):
        rs = [r for r in rows if r["device"] == dev]
        mo = max((r["max_abs_diff"]["outputs"] for r in rs), default=0.0)
        mg = max((r["max_abs_diff"]["grads"] for r in rs), default=0.0)
        nz = [(r["path"], r["function"], r["max_abs_diff"]) for r in rs
              if r["max_abs_diff"]["outputs"] or r["max_abs_diff"]["grads"]]
        L.append(f"- {dev}: max abs diff outputs {mo:.3g}, grads {mg:.3g}; results with a nonzero diff: {len(nz)}")
        for p, f, d in nz:
            L.append(f"  - {p} {f}: outputs {d['outputs']:.3g}, grads {d['grads']:.3g}")
    for r in rows:
        if r["status"] != "verified":
            L.append(f"- NOT VERIFIED {r['device']} {r['status']}: {r['path']} {r['function']}: {r['reason'][:400]}")
    devs = sorted({r["device"] for r in rows})
    if len(devs) > 1:
        pair: dict = {}
        for r in rows:
            pair.setdefault((r["path"], r["function"], r["line"]), {})[r["device"]] = r["status"]
        diff = {k: v for k, v in pair.items() if len(set(v.values())) > 1 or len(v) < len(devs)}
        L.append(f"- (path, function) pairs whose status differs between devices: {len(diff)}")
        for k, v in diff.items():
            L.append(f"  - {k[0]} {k[1]}: {v}")
    return L


def main() -> int:
    out = []
    for p in sys.argv[1:]:
        out += summarize(Path(p)) + [""]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
