"""Score `fixinplace check` and `fixinplace fix` on a program set (bench/fixsets/README.md) by running programs.

    python bench/fix_score.py [SET ...] [--check-only] [--verbose] [--json FILE] [--keep DIR]

SET is `dev`, `heldout`, `check12`, `realbugs` (folders of bench/fixsets/) or a path to a set folder; default
`heldout`. `--check-only` measures detection and the labels only (no fix run). For every set:

1. the programs are copied into a temporary workspace, once per mode (`safe`: `fix --apply`, `unsafe`:
   `fix --apply --unsafe-fixes`), and `fixinplace check --format json` runs on the originals (detection);
2. `fixinplace fix --apply` runs on each mode's copy (one call per mode, as a user would run it on a tree), then
   once more: a file the second run changes again is counted as `not idempotent`;
3. one child interpreter (torch imported once) runs every original, every intended program and every patched
   program's `main()` with fixed seeds and compares what they return (same keys, shapes, dtypes; tensors
   allclose with rtol 1e-5, atol 1e-6; a None gradient equals an all-zero one).

Outcome of a hazardous program in a mode:
    fixed        the fix changed it; the patched program runs and returns what intended.py returns
    unchanged    the fix did not change it
    left-hazard  changed, but the patched program still raises the autograd in-place or leaf error, or (label
                 `silent`) still returns what the original returns
    wrong        changed, runs, but returns something else than intended.py (an effect removed or altered)
    crash        changed, and the patched program raises another exception
A safe (`ok`) program must come out byte-identical (`untouched`); otherwise `changed`.
The label each program's case.json gives is re-measured (`label mismatch` lines when it no longer holds).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SETS = REPO / "bench" / "fixsets"
MODES = ("safe", "unsafe")
HAZARD_LABELS = ("raises-saved", "raises-leaf", "silent")


@dataclass
class Case:
    """One program of a set: `program.py` and the sibling modules it imports (`sources`, relative to the folder),
    and the intended program's entry (`intended.py`, or `intended/program.py` when a sibling module changes)."""

    name: str
    folder: Path
    label: str
    family: str
    sources: tuple[str, ...]
    intended: Path | None


@dataclass
class CaseScore:
    """What happened to one program."""

    name: str
    label: str
    family: str
    measured: str = ""  # the label measured now
    detected: str = "none"  # none | warning | error (the most severe check diagnostic on the original)
    outcomes: dict = field(default_factory=dict)  # mode -> outcome
    idempotent: dict = field(default_factory=dict)  # mode -> bool
    details: dict = field(default_factory=dict)  # mode -> short reason


def load_cases(folder: Path) -> list[Case]:
    """The programs of a set folder, in name order."""
    cases = []
    for sub in sorted(p for p in folder.iterdir() if p.is_dir() and (p / "case.json").exists()):
        meta = json.loads((sub / "case.json").read_text(encoding="utf-8"))
        sources = tuple(sorted(p.name for p in sub.glob("*.py") if p.name != "intended.py"))
        intended = next((p for p in (sub / "intended.py", sub / "intended" / "program.py") if p.exists()), None)
        cases.append(Case(sub.name, sub, meta["label"], meta.get("family", ""), sources, intended))
    return cases


def _fixinplace(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1")
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "fixinplace", *args], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=3600)


def _digest(folder: Path, sources: tuple[str, ...]) -> str:
    digest = hashlib.sha256()
    for name in sources:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes() + b"\0")
    return digest.hexdigest()


def detection(work: Path, cases: list[Case]) -> dict[str, str]:
    """The most severe error/warning `check` reports on each original program."""
    proc = _fixinplace("check", "--no-cache", "--format", "json", ".", cwd=work)
    report = json.loads(proc.stdout)
    found: dict[str, str] = {c.name: "none" for c in cases}
    for d in report["diagnostics"]:
        name = Path(d["path"]).parts[0]
        if d["severity"] == "error" or (d["severity"] == "warning" and found.get(name) == "none"):
            found[name] = d["severity"]
    return found


def apply_fixes(work: Path, cases: list[Case], unsafe: bool) -> dict[str, bool]:
    """`fix --apply` on the whole copy, then again; whether each file was left alone by the second run."""
    args = ["fix", "--apply", "--quiet"] + (["--unsafe-fixes"] if unsafe else []) + ["."]
    _fixinplace(*args, cwd=work)
    first = {c.name: _digest(work / c.name, c.sources) for c in cases}
    _fixinplace(*args, cwd=work)
    return {c.name: _digest(work / c.name, c.sources) == first[c.name] for c in cases}


CHILD = r'''
import importlib.util, json, math, os, random, sys, traceback
import torch

def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

def run(path, tag):
    # The program's folder goes first on sys.path so that `import models` finds its sibling module; the sibling
    # modules an earlier program imported under the same names are forgotten first.
    folder = os.path.dirname(os.path.abspath(path))
    for sibling in os.listdir(folder):
        if sibling.endswith(".py"):
            sys.modules.pop(sibling[:-3], None)
    sys.path.insert(0, folder)
    random.seed(0)
    torch.manual_seed(0)
    try:
        with torch.random.fork_rng():
            return "ok", load(path, f"prog_{tag}").main()
    except RuntimeError as e:
        text = str(e)
        if "modified by an inplace operation" in text:
            return "raises-saved", text.splitlines()[0][:200]
        if "leaf Variable that requires grad" in text:
            return "raises-leaf", text.splitlines()[0][:200]
        return "crash", f"RuntimeError: {text.splitlines()[0][:200] if text else ''}"
    except BaseException as e:
        return "crash", f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
    finally:
        sys.path.remove(folder)

def same(a, b):
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if a is None and isinstance(b, torch.Tensor):
        return not bool(b.ne(0).any())
    if b is None and isinstance(a, torch.Tensor):
        return not bool(a.ne(0).any())
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        a, b = a.detach(), b.detach()
        if a.is_floating_point() or a.is_complex():
            return bool(torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True))
        return bool(torch.equal(a, b))
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-8) or (a != a and b != b)
        except (TypeError, ValueError):
            return False
    return a == b

jobs = json.load(sys.stdin)
for index, job in enumerate(jobs):
    out = {"name": job["name"]}
    original = run(job["original"], f"o{index}")
    intended = run(job["intended"], f"i{index}") if job.get("intended") else None
    out["original"] = original[0] if original[0] != "ok" else "runs"
    if intended is not None:
        out["intended"] = intended[0] if intended[0] != "ok" else "runs"
    if original[0] == "ok":
        if intended is None:
            out["measured"] = "ok"
        elif intended[0] == "ok":
            out["measured"] = "ok" if same(original[1], intended[1]) else "silent"
        else:
            out["measured"] = "intended-fails"
    else:
        out["measured"] = original[0]
    for mode, path in job["patched"].items():
        status, value = run(path, f"{mode}{index}")
        if status != "ok":
            out[mode] = [status, value if isinstance(value, str) else ""]
        elif intended is not None and intended[0] == "ok" and same(value, intended[1]):
            out[mode] = ["matches-intended", ""]
        elif original[0] == "ok" and same(value, original[1]):
            out[mode] = ["matches-original", ""]
        else:
            out[mode] = ["differs", ""]
    print(json.dumps(out), flush=True)
'''


def run_programs(jobs: list[dict]) -> dict[str, dict]:
    """Run every program in one child interpreter; the comparison results per case."""
    env = dict(os.environ, PYTHONHASHSEED="0", OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, "-c", CHILD], input=json.dumps(jobs), capture_output=True, text=True,
                          env=env, timeout=3600)
    results = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            item = json.loads(line)
            results[item["name"]] = item
    if len(results) < len(jobs):
        sys.stderr.write(proc.stderr[-4000:])
    return results


def outcome(case: Case, changed: bool, run: list | None) -> tuple[str, str]:
    """The outcome of one program in one mode, and a short reason."""
    if case.label == "ok":
        return ("changed" if changed else "untouched"), ""
    if not changed:
        return "unchanged", ""
    if run is None:
        return "crash", "no result from the child"
    status, text = run
    if status == "matches-intended":
        return "fixed", ""
    if status in ("raises-saved", "raises-leaf"):
        return "left-hazard", text
    if status == "matches-original" and case.label == "silent":
        return "left-hazard", "still returns what the original returns"
    if status in ("differs", "matches-original"):
        return "wrong", "returns something else than intended.py"
    return "crash", text


def score_set(folder: Path, keep: Path | None, modes: tuple[str, ...] = MODES) -> list[CaseScore]:
    """Score one set folder (fixing it in each of `modes`)."""
    cases = load_cases(folder)
    work = Path(tempfile.mkdtemp(prefix="fix_score_")) if keep is None else keep / folder.name
    if keep is not None and work.exists():
        shutil.rmtree(work)
    try:
        copies: dict[str, Path] = {}
        for mode in ("original", *modes):
            copies[mode] = work / mode
            for case in cases:
                (copies[mode] / case.name).mkdir(parents=True)
                for source in case.sources:
                    shutil.copy2(case.folder / source, copies[mode] / case.name / source)
        found = detection(copies["original"], cases)
        stable = {mode: apply_fixes(copies[mode], cases, unsafe=(mode == "unsafe")) for mode in modes}
        changed = {mode: {c.name: _digest(copies[mode] / c.name, c.sources) != _digest(c.folder, c.sources)
                          for c in cases} for mode in modes}
        jobs = [{"name": c.name, "original": str(copies["original"] / c.name / "program.py"),
                 "intended": str(c.intended) if c.intended else None,
                 "patched": {m: str(copies[m] / c.name / "program.py") for m in modes if changed[m][c.name]}}
                for c in cases]
        runs = run_programs(jobs)
        scores = []
        for case in cases:
            result = runs.get(case.name, {})
            score = CaseScore(case.name, case.label, case.family, measured=result.get("measured", "?"),
                              detected=found.get(case.name, "none"))
            for mode in modes:
                score.outcomes[mode], score.details[mode] = outcome(case, changed[mode][case.name], result.get(mode))
                score.idempotent[mode] = stable[mode][case.name]
            scores.append(score)
        return scores
    finally:
        if keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _pct(n: int, d: int) -> str:
    return f"{n}/{d} ({100.0 * n / d:.0f}%)" if d else "0/0"


def summary(name: str, scores: list[CaseScore], modes: tuple[str, ...] = MODES) -> str:
    """The figures of one set."""
    hazardous = [s for s in scores if s.label in HAZARD_LABELS]
    safe = [s for s in scores if s.label == "ok"]
    lines = [f"== {name}: {len(hazardous)} hazardous programs, {len(safe)} safe programs"]
    lines.append(f"detected (error or warning): {_pct(sum(s.detected != 'none' for s in hazardous), len(hazardous))}; "
                 f"as error: {_pct(sum(s.detected == 'error' for s in hazardous), len(hazardous))}; "
                 f"safe programs flagged: {sum(s.detected != 'none' for s in safe)}")
    for mode in modes:
        counts = Counter(s.outcomes[mode] for s in hazardous)
        lines.append(
            f"fix --apply{' --unsafe-fixes' if mode == 'unsafe' else ''}: fixed {_pct(counts['fixed'], len(hazardous))}"
            f"; unchanged {counts['unchanged']}; left-hazard {counts['left-hazard']}; wrong {counts['wrong']}; "
            f"crash {counts['crash']}; safe programs changed {sum(s.outcomes[mode] == 'changed' for s in safe)}; "
            f"not idempotent {sum(not s.idempotent[mode] for s in scores)}")
    mismatches = [s for s in scores if s.measured != s.label]
    for s in mismatches:
        lines.append(f"label mismatch: {s.name}: case.json says {s.label}, measured {s.measured}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=["heldout"], help="dev, heldout, or a set folder")
    parser.add_argument("--check-only", action="store_true", help="detection and labels only, no fix run")
    parser.add_argument("--verbose", action="store_true", help="one line per program")
    parser.add_argument("--json", type=Path, help="write every score to this file")
    parser.add_argument("--keep", type=Path, help="keep the patched copies under this folder")
    args = parser.parse_args(argv)
    everything = {}
    for name in args.sets:
        folder = SETS / name if (SETS / name).is_dir() else Path(name)
        modes = () if args.check_only else MODES
        scores = score_set(folder, args.keep, modes)
        everything[name] = [asdict(s) for s in scores]
        if args.verbose:
            for s in scores:
                outcomes = "  ".join(f"{m}={s.outcomes[m]}{'' if s.idempotent[m] else '(again!)'}"
                                     + (f" [{s.details[m]}]" if s.details[m] else "") for m in modes)
                print(f"{s.name:48} {s.label:12} check={s.detected:7} {outcomes}")
        print(summary(name, scores, modes))
    if args.json:
        args.json.write_text(json.dumps(everything, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
