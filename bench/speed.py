"""How fast `fixinplace check` is on large real trees, next to bare LibCST parsing and TorchFix.

    python bench/speed.py [--jobs N] [--corpus transformers|torch|all] [--limit N]

For each corpus (the `models/` tree of transformers 5.23.0, fetched into the bench cache by `bench/_fetch.py`,
and the sources of the installed torch package) it prints: files, lines, then seconds and peak memory for

- bare LibCST parsing of every file (`libcst.parse_module`, in N worker processes: the number `check` uses),
- `fixinplace check` cold (a fresh, empty cache folder) and warm (the same command again: every file cached),
- TorchFix 0.7.0 (from the package index, installed in its own virtual environment `.bench_cache/torchfix-venv`
  because it pins an older libcst), its CLI on the same files,

and the ratios against the goals (on wall time; CPU-time ratios are printed next to them): cold check at most 1.5x
LibCST parsing, at least 2x faster than TorchFix, warm under 5% of cold. Every tool gets the same explicit list of files (the files `check` would discover under the
corpus folder). Each command runs in a child process; its peak memory is the largest resident set of it or any
of its worker processes (`getrusage(RUSAGE_CHILDREN).ru_maxrss`, measured by a small wrapper process).
Nothing fetched is committed; nothing here imports torch.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _fetch import REPO, TORCHFIX, TRANSFORMERS, cache_dir, installed_torch_dir, source_tree  # noqa: E402

# Runs a command; prints its wall time, the CPU time and the peak RSS (KiB) of it and the descendants it waited for.
# A command still running after the limit (seconds; 0: none) is stopped with its whole process group.
_MEASURE = r"""
import json, os, resource, signal, subprocess, sys, time
limit, cmd = float(sys.argv[1]), sys.argv[2:]
t = time.perf_counter()
proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)

def group_cpu(pgid):  # CPU seconds so far of the live processes of a process group (Linux /proc), else 0
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for pid in (d for d in os.listdir("/proc") if d.isdigit()) if os.path.isdir("/proc") else ():
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            total += (int(fields[11]) + int(fields[12])) / tick
    return total

live_cpu = 0.0
try:
    rc, finished = proc.wait(timeout=limit or None), True
except subprocess.TimeoutExpired:
    live_cpu = group_cpu(proc.pid)  # the workers about to be killed are never reaped by us: count them now
    os.killpg(proc.pid, signal.SIGKILL)
    rc, finished = proc.wait(), False
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = max(ru.ru_utime + ru.ru_stime, live_cpu)
print(json.dumps({"rc": rc, "finished": finished, "seconds": wall, "cpu": cpu, "maxrss_kib": ru.ru_maxrss}))
"""

# Bare LibCST parsing of the files named in a file, in N processes (the same pool shape as `check`).
_PARSE = r"""
import sys
from concurrent.futures import ProcessPoolExecutor
import libcst

def parse(path):
    with open(path, "rb") as f:
        data = f.read()
    try:
        libcst.parse_module(data)
        return 0
    except Exception:
        return 1

if __name__ == "__main__":
    files = open(sys.argv[1], encoding="utf-8").read().splitlines()
    jobs = int(sys.argv[2])
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            failed = sum(pool.map(parse, files, chunksize=8))
    else:
        failed = sum(map(parse, files))
    print(failed, file=sys.stderr)
"""


def measure(cmd: list[str], cwd: Path | None = None, limit: float = 0, env: dict | None = None) -> dict:
    """Run `cmd` (output discarded) and return rc, seconds, CPU seconds and peak RSS of it and its workers.

    With a `limit`, a command still running after that many seconds is stopped: `finished` is then False and its
    figures are lower bounds (CPU: what its processes had used when stopped; peak memory: not its workers').
    """
    out = subprocess.run([sys.executable, "-c", _MEASURE, str(limit), *cmd], cwd=cwd, capture_output=True,
                         text=True, check=True, env=env)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    if not result["finished"]:
        print(f"  note: {Path(cmd[0]).name} was stopped after {limit:.0f} s: its figures are lower bounds",
              file=sys.stderr)
    elif result["rc"] not in (0, 1):
        print(f"  note: {cmd[0]} ... exited with {result['rc']}", file=sys.stderr)
    return result


def torchfix_cli() -> Path:
    """The `torchfix` command of its own virtual environment under the bench cache (made on first use)."""
    venv = cache_dir() / "torchfix-venv"
    exe = venv / "bin" / "torchfix"
    if not exe.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                        f"{TORCHFIX[0]}=={TORCHFIX[1]}"], check=True)
    return exe


def corpus_files(root: Path) -> list[str]:
    """The files `check` discovers under `root`, as absolute paths."""
    sys.path.insert(0, str(REPO))
    from fixinplace.discovery import discover
    from fixinplace.settings import Settings

    found = discover([str(root)], Settings(project_root=root))
    return [str(Path(f).resolve()) for f in found.files]


def count_lines(files: list[str]) -> int:
    total = 0
    for f in files:
        with open(f, "rb") as fh:
            total += fh.read().count(b"\n")
    return total


def mib(kib: int) -> str:
    return f"{kib / 1024:.0f} MiB"


def line(label: str, r: dict) -> None:
    more = "" if r["finished"] else ">"
    print(f"   {label:<34} {more:>1}{r['seconds']:8.2f} s wall {more:>1}{r['cpu']:8.2f} s CPU   peak "
          f"{mib(r['maxrss_kib'])}{'' if r['finished'] else '   (stopped: not finished)'}", flush=True)


def ratio(label: str, num: dict, den: dict, goal: str, met) -> None:
    wall, cpu = num["seconds"] / den["seconds"], num["cpu"] / den["cpu"]
    more = "" if num["finished"] else ">"  # only TorchFix may be stopped, and it is always the numerator
    verdict = "met" if met(wall) else ("not shown" if more else "MISSED")
    print(f"   {label:<28} {more:>1}{wall:7.3f}x wall {more:>1}{cpu:7.3f}x CPU   (goal {goal}, on wall time: {verdict})")


def bench_corpus(name: str, root: Path, jobs: int, torchfix: Path, limit: int = 0, tf_limit: float = 0) -> dict:
    files = corpus_files(root)
    if limit:
        files = files[:limit]
    lines = count_lines(files)
    work = Path(tempfile.mkdtemp(prefix="fixinplace-speed-"))
    listing = work / "files.txt"
    listing.write_text("\n".join(files) + "\n", encoding="utf-8")
    print(f"\n== {name}: {root}\n   {len(files)} files, {lines} lines", flush=True)

    parse = measure([sys.executable, "-c", _PARSE, str(listing), str(jobs)])
    line(f"LibCST parse ({jobs} processes)", parse)
    # check runs from a snapshot of this checkout's package, so that an edit made meanwhile (which changes the cache
    # key) cannot turn the warm run into a second cold one
    snapshot = work / "src"
    shutil.copytree(REPO / "fixinplace", snapshot / "fixinplace", ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(snapshot)}
    check = [sys.executable, "-m", "fixinplace", "check", "--quiet", "--jobs", str(jobs), *files]
    env_cwd = work / "project"  # the cache goes to <cwd>/.fixinplace_cache: fresh for the cold run
    env_cwd.mkdir()
    cold = measure(check, cwd=env_cwd, env=env)
    line(f"fixinplace check, cold ({jobs} proc.)", cold)
    warm = measure(check, cwd=env_cwd, env=env)
    line("fixinplace check, warm (cached)", warm)
    tfix = measure([str(torchfix), "--jobs", str(jobs), *files], cwd=work, limit=tf_limit)
    line(f"TorchFix {TORCHFIX[1]} ({jobs} processes)", tfix)

    ratio("cold check / LibCST parse", cold, parse, "<= 1.5x", lambda r: r <= 1.5)
    ratio("TorchFix / cold check", tfix, cold, ">= 2x", lambda r: r >= 2)
    ratio("warm / cold check", warm, cold, "< 0.05x", lambda r: r < 0.05)
    return {"files": len(files), "lines": lines, "parse": parse, "cold": cold, "warm": warm, "torchfix": tfix}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=0, help="processes for every tool (0: one per CPU, as check)")
    parser.add_argument("--corpus", choices=("transformers", "torch", "all"), default="all")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files of each corpus (a quick try)")
    parser.add_argument("--torchfix-limit", type=float, default=0, metavar="S",
                        help="stop TorchFix after S seconds (its figures are then lower bounds); 0: no limit")
    args = parser.parse_args(argv)
    jobs = args.jobs or os.cpu_count() or 1
    torchfix = torchfix_cli()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPUs (load average {load:.1f} at the start); every tool runs with {jobs} "
          f"processes; Python {sys.version.split()[0]}")
    print("wall: elapsed seconds; CPU: user+system seconds of the command and its worker processes (less sensitive "
          "to other load on the machine)")
    corpora = []
    if args.corpus in ("transformers", "all"):
        corpora.append((f"transformers {TRANSFORMERS[1]} models/",
                        source_tree(*TRANSFORMERS) / "transformers" / "models"))
    if args.corpus in ("torch", "all"):
        corpora.append(("torch (installed package)", installed_torch_dir()))
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "fixinplace"], cwd=REPO, capture_output=True, text=True).stdout
    print(f"fixinplace at commit {head.strip() or '?'}{' plus uncommitted changes in fixinplace/' if dirty.strip() else ''}")
    started = time.perf_counter()
    for name, root in corpora:
        bench_corpus(name, root, jobs, torchfix, args.limit, args.torchfix_limit)
    print(f"\n(total bench time {time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
