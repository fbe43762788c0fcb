"""Peak memory of `fixinplace check` per byte of source: generated hazard-dense files and real PyTorch code.

    python bench/memory.py                  # 1 MB and 4 MB generated, torch's largest real files, a mixed folder
    python bench/memory.py --sizes 1,2,4    # other generated sizes
    python bench/memory.py --tree /path     # check another tree (PYTHONPATH) with the same inputs, for comparisons

Each row runs `python -m fixinplace check --no-cache -q` alone in a subprocess; `os.wait4` gives that process's own
peak RSS (with its children, for the folder with `--jobs 2`). The baseline is a one-function file. Printed, not judged.

The generated files hold only `def fN(x): y = x.exp(); y.add_(1); return y` functions, each with a hazard: the
worst case for the analysis' per-hazard state. The real files are torch's own test helpers (installed with torch).
The folder row checks 40 small files and 3 generated 1.5 MB ones with two workers: large files are checked one at
a time in the main process, so its peak should stay near one large file's, not three.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def hazard_file(size: int) -> str:
    """A file of about `size` bytes, one in-place hazard per function."""
    parts, n, k = ["import torch\n\n\n"], 15, 0
    while n < size:
        part = f"def f{k}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n\n\n"
        parts.append(part)
        n, k = n + len(part), k + 1
    return "".join(parts)


def measure(args: list[str], tree: Path) -> tuple[float, int, int]:
    """(seconds, peak RSS in bytes, exit status) of `fixinplace check --no-cache -q ARGS`, run alone."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "fixinplace", "check", "--no-cache", "-q", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=tempfile.gettempdir())
    _, status, usage = os.wait4(proc.pid, 0)
    return time.monotonic() - start, usage.ru_maxrss * 1024, os.waitstatus_to_exitcode(status)


def torch_files() -> list[Path]:
    try:
        import importlib.util

        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return []
    if spec is None or spec.origin is None:
        return []
    internal = Path(spec.origin).parent / "testing" / "_internal"
    return sorted(internal.glob("*.py"), key=lambda p: p.stat().st_size, reverse=True)[:2]


def rows(sizes_mb: list[float], tree: Path = ROOT) -> list[str]:
    """One printed line per measurement (see the module's docstring)."""
    out: list[str] = []
    folder = Path(tempfile.mkdtemp(prefix="fixinplace-memory-"))
    try:
        tiny = folder / "tiny.py"
        tiny.write_text(hazard_file(1))
        _, base, _ = measure([str(tiny)], tree)
        out.append(f"baseline (one function): peak RSS {base / 2**20:.0f} MB")

        def row(label: str, size: int, paths: list[str]) -> None:
            seconds, rss, status = measure(paths, tree)
            out.append(f"{label}: {size / 2**20:.2f} MB of source, {seconds:.1f} s, peak RSS {rss / 2**20:.0f} MB, "
                       f"{(rss - base) / size:.0f} bytes per source byte above the baseline, exit {status}")

        for mb in sizes_mb:
            path = folder / f"dense_{mb:g}mb.py"
            path.write_text(hazard_file(int(mb * 2**20)))
            row(f"generated, a hazard per function ({mb:g} MB)", path.stat().st_size, [str(path)])
        for path in torch_files():
            row(f"real: torch/testing/_internal/{path.name}", path.stat().st_size, [str(path)])
        mixed = folder / "mixed"
        mixed.mkdir()
        for k in range(40):
            (mixed / f"small{k:02}.py").write_text(hazard_file(4000))
        for k in range(3):
            (mixed / f"large{k}.py").write_text(hazard_file(int(1.5 * 2**20)))
        size = sum(p.stat().st_size for p in mixed.iterdir())
        row("folder: 40 small files and three 1.5 MB ones, --jobs 2", size, [str(mixed), "--jobs", "2"])
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1,4", help="MB of generated source to measure (comma-separated)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the fixinplace tree to measure")
    args = parser.parse_args()
    print(f"tree: {args.tree}")
    for line in rows([float(s) for s in args.sizes.split(",") if s.strip()], args.tree):
        print(line)

if __name__ == "__main__":
    main()
