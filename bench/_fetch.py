"""Pinned real packages for the bench scripts, fetched from the package index into a local cache (never committed).

`source_tree("transformers", "5.23.0")` gives the folder holding the package's files, unpacked from its wheel
with no dependencies (enough to read or check the sources; nothing is imported). The cache folder is
`$FIXINPLACE_BENCH_CACHE` or `.bench_cache/` at the repository root (ignored by git).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRANSFORMERS = ("transformers", "5.23.0")
TORCHFIX = ("torchfix", "0.7.0")


def cache_dir() -> Path:
    """The folder the bench scripts keep fetched packages in."""
    folder = Path(os.environ.get("FIXINPLACE_BENCH_CACHE", REPO / ".bench_cache"))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def source_tree(name: str, version: str) -> Path:
    """The unpacked files of `name==version` (its wheel, without dependencies), fetched on first use."""
    target = cache_dir() / f"{name}-{version}"
    done = target / ".complete"
    if not done.exists():
        subprocess.run(
            [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
             "--target", str(target), f"{name}=={version}"],
            check=True,
        )
        done.touch()
    return target


def _runtime_requirements(tree: Path) -> list[str]:
    """The unconditional `Requires-Dist` lines (no extras) of the wheel unpacked in `tree`."""
    reqs = []
    for meta in tree.glob("*.dist-info/METADATA"):
        for line in meta.read_text(encoding="utf-8").splitlines():
            if line.startswith("Requires-Dist:") and "extra ==" not in line:
                reqs.append(line.split(":", 1)[1].split(";")[0].strip())
    return reqs


def runtime_deps(name: str, version: str) -> Path:
    """A folder holding the runtime dependencies of `name==version` (never torch), for PYTHONPATH; fetched once.

    pip resolves them first with `--dry-run`; if torch (or any nvidia package) would come along the run stops, so
    the installed torch stays the only one.
    """
    tree = source_tree(name, version)
    target = cache_dir() / f"{name}-{version}-deps"
    done = target / ".complete"
    if done.exists():
        return target
    reqs = _runtime_requirements(tree)
    base = [sys.executable, "-m", "pip", "install", "--quiet", "--no-compile", "--target", str(target)]
    probe = subprocess.run(base[:4] + ["--dry-run", "--target", str(target) + "-probe"] + reqs,
                           check=True, capture_output=True, text=True)
    would = " ".join(l for l in probe.stdout.splitlines() if l.startswith("Would install")).lower()
    if " torch-" in would or "nvidia" in would:
        raise SystemExit(f"bench: the dependencies of {name}=={version} would pull torch: {would}")
    subprocess.run(base + reqs, check=True)
    done.touch()
    return target


def installed_torch_dir() -> Path:
    """The installed torch package's folder, located without importing torch."""
    import importlib.util

    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("bench: torch is not installed in this environment (pip install torch==2.13.0)")
    return Path(list(spec.submodule_search_locations)[0])
