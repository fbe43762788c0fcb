"""A compact, op-by-op table of bench/cuda/probe_kernels.py's output: for each case where CPU and CUDA differ in
what is saved or in which writes raise, the saved items and the writes that raise on each device and dtype, and
the autograd node that did the work.

    python bench/cuda/probe_summary.py probe_kernels.json[.gz] > probe_summary.md
"""

from __future__ import annotations

import gzip
import json
import sys

DTYPES = ("float64", "float32", "float16", "bfloat16")
GENERIC = {"ViewBackward0", "ExpandBackward0", "TransposeBackward0", "UnsafeViewBackward0", "ReshapeAliasBackward0",
           "TBackward0", "PermuteBackward0", "SelectBackward0", "SqueezeBackward1", "CloneBackward0",
           "ToCopyBackward0", "StackBackward0", "RepeatBackward0"}


def _load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def _cell(r):
    if r is None:
        return "-"
    if "error" in r:
        e = r["error"]
        return "no kernel" if "kernel" in e or "backend" in e else "error: " + e[:60]
    a = r.get("all", {})
    nodes = [n["node"] for n in a.get("nodes", [])]
    main = sorted({n for n in nodes if n not in GENERIC}) or sorted(set(nodes))
    main_s = main[0] if len(main) == 1 else f"{len(nodes)} nodes"
    raises = sorted(k for k, v in (r.get("writes") or {}).items() if v == "raises")
    return f"`{main_s}`; saves {', '.join(a.get('saved', [])) or 'nothing'}; write raises: {', '.join(raises) or 'none'}"


def main() -> int:
    d = _load(sys.argv[1])
    print(f"# Kernel probe, compact (torch {d['meta']['torch']}, CUDA {d['meta']['cuda']}, cuDNN "
          f"{d['meta']['cudnn']}, {d['meta']['gpu']})\n")
    print("Cases where, in some dtype, CUDA saves other items than CPU or another write raises. Each cell: the main "
          "autograd node (or the node count for composite ops), the identified saved items (config: every input "
          "and parameter requires grad), and the items whose version bump makes backward raise.\n")
    same, one_sided = [], []
    for case, by_dev in d["cases"].items():
        rows = []
        for dt in DTYPES:
            a, b = by_dev.get("cpu", {}).get(dt), by_dev.get("cuda", {}).get(dt)
            if a is not None and b is not None and (("error" in a) != ("error" in b)):
                one_sided.append(f"{case} {dt}: runs on {'CUDA' if 'error' in a else 'CPU'} only ("
                                 f"{_cell(b if 'error' in a else a)})")
        for dt in DTYPES:
            a, b = by_dev.get("cpu", {}).get(dt), by_dev.get("cuda", {}).get(dt)
            def key(r):
                if r is None or "error" in r:
                    return None
                return (tuple(r["all"].get("saved", [])), tuple(sorted(k for k, v in (r.get("writes") or {}).items()
                                                                      if v == "raises")))
            if key(a) is not None and key(b) is not None and key(a) != key(b):
                rows.append(f"| {dt} | {_cell(a)} | {_cell(b)} |")
        if rows:
            print(f"### {case}\n\n| dtype | CPU | CUDA |\n| --- | --- | --- |")
            print("\n".join(rows) + "\n")
        else:
            same.append(case)
    print("### Kernels that run on one device only (a backend switch or dtype the other lacks)\n")
    print("\n".join(f"- {x}" for x in one_sided) + "\n")
    print("### Same saved items and same raising writes on CPU and CUDA in every dtype that runs on both\n")
    print(", ".join(same))
    return 0


if __name__ == "__main__":
    sys.exit(main())
