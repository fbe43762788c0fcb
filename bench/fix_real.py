"""Stress-test `fixinplace fix` on real code trees: what it changes, whether the result still compiles, whether a
second run changes anything, what `check` says before and after, and whether safe fixes keep training bit-identical.

Trees (each copied to a temporary folder first; the originals and the bench cache are never modified):
  transformers   the `transformers/models/` tree of transformers 5.23.0 (fetched by `bench/_fetch.py`)
  torch-nn       `torch/nn` of the installed torch
  torch-optim    `torch/optim` of the installed torch

For each tree and each mode (safe: `fix --apply`; unsafe: `fix --apply --unsafe-fixes`) it runs, on a fresh copy:
  1. `fix` once: wall time, the tool's summary line, exit status, error lines; the files that changed on disk (by
     content) and the hazards the tool says it fixed and left;
  2. `compile()` on every changed file (a file whose original compiles must still compile);
  3. `check` on the patched copy (errors / warnings after, against `check --format json` on the original copy,
     whose fixes annotate the list of changes);
  4. the same `fix` again: every file this second run changes is a defect (it must change nothing); the diff of
     each is printed (first 40 lines).
Every change is written as a unified diff (original vs patched), one `.diff` per changed file, under
`OUT/<mode>/<path>.diff` (second-run diffs under `OUT/second-run/<mode>/`), and the safe changes are listed as
`file:line` with their `-` / `+` lines and the hazards `check` reported there on the original.

Training check (transformers): `fix --apply` (safe fixes only) on a copy of the WHOLE transformers package, then
`bench/train_models.py`'s 12 families (one training step each) once with the original package and once with the
patched copy, in exact mode (`train_models.run_models(..., exact=True)`: each family seeded on its own). Per
family it compares, bit for bit: the loss, the logits, every parameter's gradient and every parameter after the
AdamW step, and names the patched files among the family's modeling files and among the transformers files whose
code ran. It also compares the patched `models/` files with those of the models-tree safe run (the same files
must get the same fix), and reports whether the known Doge MoE hazard still raises.

At the end: a summary table (tree, files, mode, files changed, hazards fixed, remaining, second-run changes,
non-compiling files, check errors/warnings before/after, wall time), then the training comparison. Figures are
printed, never asserted; the exit status is 0 unless the bench itself could not run. The whole report is also
written to `OUT/report.txt` and the figures to `OUT/summary.json`.

Usage:
  python bench/fix_real.py [--code DIR] [--out DIR] [--trees transformers,torch-nn,torch-optim]
                           [--modes safe,unsafe] [--limit N] [--match REGEX] [--no-train] [--jobs N] [--keep]

  --code DIR   the fixinplace checkout to test (put on PYTHONPATH of every tool run; default: this repository),
               for example a git worktree of a fixed commit
  --out DIR    where the diffs, report.txt and summary.json go (default: a new temporary folder)
  --limit N    only the first N files (sorted) of each tree: a quick try (the training check still fixes the whole
               package; add --no-train to skip it)
  --match RE   only the files whose path (`transformers/models/...`, `torch/nn/...`) matches RE
  --jobs N     worker processes for `check` (0: one per CPU); `fix` runs in one process
  --keep       keep the temporary copies (their folder is printed)
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fetch  # noqa: E402
import train_models  # noqa: E402

MODES = {"safe": [], "unsafe": ["--unsafe-fixes"]}
# -P: the working folder (a copy holding `torch/` or `transformers/` folders) is not put on sys.path, so that only
# PYTHONPATH (the code under test) and the environment provide modules
PYTHON = [sys.executable, "-P"] if sys.version_info >= (3, 11) else [sys.executable]
SUMMARY_RE = re.compile(r"^(?:Fixed|Would fix) (\d+) hazards? in (\d+) files?(?:; (\d+) remains?)?")
UNSAFE_ONLY_RE = re.compile(r"^(\d+) remaining hazards? ha(?:s|ve) only an unsafe fix")


class Report:
    """Prints each line and keeps it for report.txt."""

    def __init__(self):
        self.lines: list[str] = []

    def __call__(self, text: str = "") -> None:
        print(text, flush=True)
        self.lines.append(text)


say = Report()


# ---------------------------------------------------------------------------------------------------------------
# Files


def py_files(root: Path) -> list[Path]:
    """The `*.py` files under `root` (sorted, no `__pycache__`)."""
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts and p.is_file())


def snapshot(base: Path, sub: str) -> dict[str, bytes]:
    """{path relative to `base`: bytes} of every `*.py` file under `base / sub`."""
    return {str(p.relative_to(base)): p.read_bytes() for p in py_files(base / sub)}


def copy_files(src_root: Path, files: list[Path], dst: Path) -> None:
    """Copy `files` (under `src_root`) to `dst`, keeping their paths relative to `src_root`."""
    for f in files:
        target = dst / f.relative_to(src_root)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)


def digest(files: dict[str, bytes]) -> str:
    h = hashlib.sha256()
    for name in sorted(files):
        h.update(name.encode() + b"\0" + hashlib.sha256(files[name]).digest())
    return h.hexdigest()


def text_of(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def unified(rel: str, old: bytes, new: bytes) -> str:
    return "".join(difflib.unified_diff(text_of(old).splitlines(True), text_of(new).splitlines(True),
                                        f"a/{rel}", f"b/{rel}", n=3))


def compiles(data: bytes, name: str) -> str | None:
    """None when `data` compiles, else the error in one line."""
    try:
        compile(data, name, "exec", dont_inherit=True)
        return None
    except (SyntaxError, ValueError) as e:
        return f"{type(e).__name__}: {e}"


def changes(old: bytes, new: bytes) -> list[tuple[int, list[str], list[str]]]:
    """(first original line, removed lines, added lines) of each change between two versions of a file."""
    a, b = text_of(old).splitlines(), text_of(new).splitlines()
    out = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            out.append((i1 + 1, a[i1:i2], b[j1:j2]))
    return out


def write_text(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", errors="surrogateescape")


# ---------------------------------------------------------------------------------------------------------------
# Running the tool


def tool(args: list[str], cwd: Path, code: Path, timeout: float = 7200) -> dict:
    """Run `python -m fixinplace ARGS` with `code` on PYTHONPATH; rc, stdout, stderr, seconds."""
    env = dict(os.environ, PYTHONPATH=str(code), TERM="dumb")
    env.pop("FIXINPLACE_NO_PREFILTER", None)
    start = time.perf_counter()
    proc = subprocess.run([*PYTHON, "-m", "fixinplace", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)
    return {"rc": proc.returncode, "stdout": proc.stdout, "stderr": proc.stderr,
            "seconds": time.perf_counter() - start}


def run_fix(cwd: Path, target: str, mode: str, code: Path) -> dict:
    """`fix --apply` (with the mode's options) on `target`; the run, its summary figures and error lines."""
    run = tool(["fix", "--apply", *MODES[mode], "--config", "pyproject.toml", target], cwd, code)
    out = run["stdout"].splitlines()
    summary = next((l for l in out if SUMMARY_RE.match(l)), "")
    m = SUMMARY_RE.match(summary)
    run["summary"] = summary or "(no summary line)"
    run["fixed"] = int(m.group(1)) if m else None
    run["fixed_files"] = int(m.group(2)) if m else None
    run["remaining"] = int(m.group(3) or 0) if m else None
    u = next((UNSAFE_ONLY_RE.match(l) for l in out if UNSAFE_ONLY_RE.match(l)), None)
    run["unsafe_only"] = int(u.group(1)) if u else 0
    run["error_lines"] = [l for l in run["stderr"].splitlines() if ": error: " in l]
    return run


CHECK_LINE_RE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>[A-Z]+\d+) \[(?P<severity>\w+)\]")


def run_check(cwd: Path, target: str, code: Path, jobs: int, fixes: bool = True) -> dict:
    """`check` on `target`: counts of errors and warnings, the diagnostics, the files not checked.

    With `fixes`, `--format json` (each diagnostic with the fix `fix` would apply: the analysis runs again for every
    hazard, which is several times slower); else `--quiet` text, parsed line by line."""
    common = ["--no-cache", "--config", "pyproject.toml", "--jobs", str(jobs), target]
    if not fixes:
        run = tool(["check", "--quiet", *common], cwd, code)
        diags, not_checked = [], []
        for line in (run["stdout"] + "\n" + run["stderr"]).splitlines():
            m = CHECK_LINE_RE.match(line)
            if m:
                diags.append({**m.groupdict(), "line": int(m["line"])})
            elif ": error: " in line:
                not_checked.append({"path": line.split(": error: ")[0], "message": line.split(": error: ", 1)[1]})
        diags = [d for d in diags if d["severity"] in ("error", "warning")]
        return {"ok": run["rc"] in (0, 1, 2), "errors": sum(d["severity"] == "error" for d in diags),
                "warnings": sum(d["severity"] == "warning" for d in diags), "diagnostics": diags,
                "not_checked": not_checked, "seconds": run["seconds"], "rc": run["rc"],
                "tail": (run["stdout"] + run["stderr"])[-2000:]}
    run = tool(["check", "--format", "json", *common], cwd, code)
    try:
        report = json.loads(run["stdout"])
    except ValueError:
        return {"ok": False, "errors": None, "warnings": None, "diagnostics": [], "not_checked": [],
                "seconds": run["seconds"], "rc": run["rc"], "tail": (run["stdout"] + run["stderr"])[-2000:]}
    diags = [d for d in report["diagnostics"] if d["severity"] in ("error", "warning")]
    return {"ok": True, "errors": sum(d["severity"] == "error" for d in diags),
            "warnings": sum(d["severity"] == "warning" for d in diags), "diagnostics": diags,
            "not_checked": report.get("errors", []), "seconds": run["seconds"], "rc": run["rc"]}


def prepare(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text("[tool.fixinplace]\n", encoding="utf-8")
    return folder


# ---------------------------------------------------------------------------------------------------------------
# One tree


def bench_tree(name: str, src_root: Path, sub: str, files: list[Path], work: Path, out: Path, code: Path,
               modes: list[str], jobs: int) -> list[dict]:
    """Fix a copy of `files` (under `src_root / sub`) in each mode; the summary row of each mode."""
    say(f"\n== {name}: {src_root / sub} ({len(files)} files)")
    orig_dir = prepare(work / name / "orig")
    copy_files(src_root, files, orig_dir)
    original = snapshot(orig_dir, sub)
    before = run_check(orig_dir, sub, code, jobs)
    if not before["ok"]:
        say(f"   check on the original failed (exit {before['rc']}): {before['tail']}")
    else:
        skipped = f", {len(before['not_checked'])} files not checked" if before["not_checked"] else ""
        say(f"   check, original: {before['errors']} errors, {before['warnings']} warnings{skipped} "
            f"({before['seconds']:.1f} s)")
        for err in before["not_checked"]:
            say(f"   not checked: {err.get('path')}: {err.get('message')}")
    by_line: dict[str, dict[int, list[dict]]] = {}
    for d in before["diagnostics"]:
        by_line.setdefault(d["path"], {}).setdefault(d["line"], []).append(d)
    rows = []
    for mode in modes:
        mdir = prepare(work / name / mode)
        copy_files(src_root, files, mdir)
        first = run_fix(mdir, sub, mode, code)
        after1 = snapshot(mdir, sub)
        changed = sorted(r for r in after1 if after1[r] != original.get(r))
        broken = {}
        for r in changed:
            err = compiles(after1[r], r)
            if err and compiles(original[r], r) is None:
                broken[r] = err
        after = run_check(mdir, sub, code, jobs, fixes=False)
        second = run_fix(mdir, sub, mode, code)
        after2 = snapshot(mdir, sub)
        second_changed = sorted(r for r in after2 if after2[r] != after1.get(r))
        say(f"\n-- {name}, {mode}: fix --apply{' ' + ' '.join(MODES[mode]) if MODES[mode] else ''}: "
            f"{first['seconds']:.1f} s, exit {first['rc']}: {first['summary']}")
        if first["unsafe_only"]:
            say(f"   ({first['unsafe_only']} remaining hazards have only an unsafe fix)")
        for line in first["error_lines"]:
            say(f"   ERROR LINE: {line}")
        if first["rc"] not in (0, 1):
            say(f"   stderr tail: {first['stderr'][-1500:]}")
        say(f"   files changed on disk: {len(changed)} (the tool says {first['fixed_files']})")
        for r in changed:
            (out / mode / (r + ".diff")).parent.mkdir(parents=True, exist_ok=True)
            write_text(out / mode / (r + ".diff"), unified(r, original[r], after1[r]))
        for r, err in broken.items():
            say(f"   DOES NOT COMPILE: {r}: {err}")
        if after["ok"]:
            say(f"   check after: {after['errors']} errors, {after['warnings']} warnings ({after['seconds']:.1f} s); "
                f"before: {before['errors']} / {before['warnings']}")
            if first["remaining"] is not None and first["remaining"] != after["errors"] + after["warnings"]:
                say(f"   NOTE: fix says {first['remaining']} remain, check after reports "
                    f"{after['errors'] + after['warnings']}")
        else:
            say(f"   check after failed (exit {after['rc']}): {after['tail']}")
        say(f"   second run: {second['seconds']:.1f} s, exit {second['rc']}: {second['summary']}; "
            f"files changed: {len(second_changed)}")
        for line in second["error_lines"]:
            say(f"   ERROR LINE (second run): {line}")
        for r in second_changed:
            diff = unified(r, after1[r], after2[r])
            write_text(out / "second-run" / mode / (r + ".diff"), diff)
            say(f"   SECOND RUN CHANGED {r}:")
            for l in diff.splitlines()[:40]:
                say(f"     {l}")
        if mode == "safe" and changed:
            say(f"   safe changes ({len(changed)} files; diffs under {out / mode}):")
            for r in changed:
                for line, minus, plus in changes(original[r], after1[r]):
                    say(f"   {r}:{line}")
                    for l in minus:
                        say(f"     - {l}")
                    for l in plus:
                        say(f"     + {l}")
                    last = max(line + len(minus), line + 1)
                    for n in range(line, last + 1):
                        for d in by_line.get(r, {}).get(n, []):
                            fix = d.get("fix") or {}
                            say(f"       [{d['code']} {d['severity']} at line {n}; fix offered on the original: "
                                f"{fix.get('applicability', 'none')}: {fix.get('description', '-')}]")
        rows.append({
            "tree": name, "files": len(files), "mode": mode, "changed": len(changed), "changed_files": changed,
            "fixed": first["fixed"], "tool_fixed_files": first["fixed_files"], "remaining": first["remaining"],
            "unsafe_only": first["unsafe_only"], "rc": first["rc"], "error_lines": first["error_lines"],
            "second_changed": second_changed, "second_summary": second["summary"], "not_compiling": broken,
            "before": [before["errors"], before["warnings"]], "after": [after["errors"], after["warnings"]],
            "seconds": first["seconds"], "second_seconds": second["seconds"],
            "patched": {r: hashlib.sha256(after1[r]).hexdigest() for r in changed}, "covered": sorted(original),
        })
    return rows


# ---------------------------------------------------------------------------------------------------------------
# Training check


def train_check(work: Path, out: Path, code: Path, models_rows: list[dict]) -> dict:
    """Safe-fix a copy of the whole transformers package; train the 12 families with the original and the copy."""
    src = _fetch.source_tree(*_fetch.TRANSFORMERS)
    site = prepare(work / "train" / "site")
    say(f"\n== training check: fix --apply (safe) on the whole transformers package ({src / 'transformers'})")
    shutil.copytree(src, site, dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "bin"))
    original = snapshot(site, "transformers")
    run = run_fix(site, "transformers", "safe", code)
    patched = snapshot(site, "transformers")
    changed = sorted(r for r in patched if patched[r] != original[r])
    broken = {r: e for r in changed if (e := compiles(patched[r], r)) and compiles(original[r], r) is None}
    say(f"   {len(original)} files; {run['seconds']:.1f} s, exit {run['rc']}: {run['summary']}")
    for line in run["error_lines"]:
        say(f"   ERROR LINE: {line}")
    say(f"   files changed: {len(changed)}; not compiling: {len(broken)}")
    for r, err in broken.items():
        say(f"   DOES NOT COMPILE: {r}: {err}")
    for r in changed:
        write_text(out / "train-package" / (r + ".diff"), unified(r, original[r], patched[r]))
    outside = [r for r in changed if not r.startswith("transformers/models/")]
    if outside:
        say(f"   changed outside models/ ({len(outside)}): {', '.join(outside)}")
        for r in outside:
            for line, minus, plus in changes(original[r], patched[r]):
                say(f"   {r}:{line}")
                for l in minus:
                    say(f"     - {l}")
                for l in plus:
                    say(f"     + {l}")
    # The models/ files must get the same fix as in the models-tree run (each file is analysed on its own).
    mismatch = []
    for row in models_rows:
        if row["mode"] == "safe":
            for r in row["covered"]:
                here = hashlib.sha256(patched[r]).hexdigest() if r in changed else None
                if r in original and row["patched"].get(r) != here:
                    mismatch.append(r)
    if mismatch:
        say(f"   MODELS FILES FIXED DIFFERENTLY than in the models-tree run ({len(mismatch)}): {', '.join(mismatch)}")
    tensors = work / "train"
    results = {}
    for label, folder in (("original", None), ("patched", site)):
        start = time.perf_counter()
        try:
            results[label] = train_models.run_models(folder, exact=True, tensors_file=tensors / f"{label}.pt")
        except SystemExit as e:
            results[label] = {"families": [], "failed": str(e)}
        say(f"   training, {label} package: {time.perf_counter() - start:.1f} s"
            + (f"; FAILED: {results[label]['failed'][-1500:]}" if "failed" in results[label] else ""))
    comparison = compare_training(results, tensors, set(changed))
    return {"files": len(original), "changed": changed, "not_compiling": broken, "seconds": run["seconds"],
            "summary": run["summary"], "fixed": run["fixed"], "remaining": run["remaining"], "mismatch": mismatch,
            "comparison": comparison, "error_lines": run["error_lines"]}


def compare_training(results: dict, tensors: Path, changed: set[str]) -> dict:
    """Per family: identical (loss, logits, gradients, parameters after the step), else what differs."""
    import torch

    loaded = {}
    for label in ("original", "patched"):
        path = tensors / f"{label}.pt"
        loaded[label] = torch.load(path) if path.exists() else {}
    a = {f["family"]: f for f in results["original"].get("families", [])}
    b = {f["family"]: f for f in results["patched"].get("families", [])}
    rows = []
    say("\n   family       result      patched modeling files used / patched files whose code ran")
    for fam in a or b:
        fa, fb = a.get(fam, {}), b.get(fam, {})
        ea, eb = fa.get("exact", {}), fb.get("exact", {})
        used = sorted(f"transformers/{f}" for f in fa.get("files", []) if f"transformers/{f}" in changed)
        ran = sorted(f"transformers/{f}" for f in set(ea.get("files_run", [])) | set(eb.get("files_run", []))
                     if f"transformers/{f}" in changed)
        problems = []
        if not fa.get("ok"):
            problems.append(f"original failed: {fa.get('error', '?')[-300:]}")
        if not fb.get("ok"):
            problems.append(f"patched failed: {fb.get('error', 'no result')[-300:]}")
        if fa.get("ok") and fb.get("ok"):
            if ea.get("loss_hex") != eb.get("loss_hex"):
                problems.append(f"loss {float.fromhex(ea['loss_hex'])!r} -> {float.fromhex(eb['loss_hex'])!r}")
            if ea.get("logits_hash") != eb.get("logits_hash"):
                problems.append("logits differ" + _maxdiff(loaded, fam, "logits"))
            for kind in ("grads", "params"):
                ga, gb = ea.get(kind, {}), eb.get(kind, {})
                if set(ga) != set(gb):
                    problems.append(f"{kind}: different names ({sorted(set(ga) ^ set(gb))[:5]})")
                diff = [n for n in ga if n in gb and ga[n] != gb[n]]
                if diff:
                    problems.append(f"{kind}: {len(diff)}/{len(ga)} differ, e.g. {diff[0]}"
                                    + _maxdiff(loaded, fam, kind, diff))
        same = not problems
        rows.append({"family": fam, "identical": same, "problems": problems, "patched_used": used,
                     "patched_ran": ran})
        say(f"   {fam:<12} {'identical' if same else 'DIFFERS':<11} {', '.join(used) or '-'} / {', '.join(ran) or '-'}")
        for p in problems:
            say(f"      {p}")
    hz = {}
    for label in ("original", "patched"):
        for h in results[label].get("hazards", []):
            hz.setdefault(h["family"], {})[label] = h["raised"] or "did not raise"
    for fam, states in hz.items():
        say(f"   known hazard {fam}: original: {states.get('original', '?')[:90]}; "
            f"patched: {states.get('patched', '?')[:90]}")
    return {"rows": rows, "identical": sum(r["identical"] for r in rows), "total": len(rows), "hazards": hz}


def _maxdiff(loaded: dict, fam: str, kind: str, names: list[str] | None = None) -> str:
    try:
        ta, tb = loaded["original"][fam][kind], loaded["patched"][fam][kind]
        if names is None:
            return f" (max abs diff {(ta.float() - tb.float()).abs().max().item():.3g})"
        worst = max((ta[n].float() - tb[n].float()).abs().max().item() for n in names)
        return f" (max abs diff {worst:.3g})"
    except Exception as e:  # noqa: BLE001 - only a detail of the report
        return f" (no tensors to compare: {type(e).__name__})"


# ---------------------------------------------------------------------------------------------------------------


def describe_code(code: Path) -> str:
    head = subprocess.run(["git", "-C", str(code), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(code), "status", "--porcelain", "--", "fixinplace", "codemods"],
                           capture_output=True, text=True).stdout.strip()
    where = subprocess.run([*PYTHON, "-c", "import fixinplace; print(fixinplace.__file__)"], cwd=tempfile.gettempdir(),
                           env=dict(os.environ, PYTHONPATH=str(code)), capture_output=True, text=True).stdout.strip()
    return (f"{code} at commit {head or '?'}{' plus uncommitted changes in fixinplace/ or codemods/' if dirty else ''}"
            f" (imports {where})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--code", default=str(_fetch.REPO), help="the fixinplace checkout to test (PYTHONPATH)")
    parser.add_argument("--out", help="folder for the diffs and the report (default: a new temporary folder)")
    parser.add_argument("--trees", default="transformers,torch-nn,torch-optim")
    parser.add_argument("--modes", default="safe,unsafe")
    parser.add_argument("--limit", type=int, default=0, help="only the first N files of each tree")
    parser.add_argument("--match", metavar="REGEX", help="only the files whose path (from the tree's parent, e.g. "
                        "transformers/models/bert/modeling_bert.py) matches REGEX (re.search)")
    parser.add_argument("--no-train", action="store_true", help="skip the training check")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes for check (0: one per CPU)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary copies")
    args = parser.parse_args(argv)
    code = Path(args.code).resolve()
    out = Path(args.out or tempfile.mkdtemp(prefix="fix-real-out-")).resolve()
    out.mkdir(parents=True, exist_ok=True)
    modes = [m for m in args.modes.split(",") if m]
    if not modes or any(m not in MODES for m in modes):
        parser.error("--modes: safe, unsafe or both")
    work = Path(tempfile.mkdtemp(prefix="fix-real-"))
    started = time.perf_counter()
    say(f"fixinplace under test: {describe_code(code)}")
    say(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at the start; Python "
        f"{sys.version.split()[0]}; output folder {out}; copies in {work}")
    torch_dir = _fetch.installed_torch_dir()
    trees = {
        "transformers": (lambda: _fetch.source_tree(*_fetch.TRANSFORMERS), "transformers/models"),
        "torch-nn": (lambda: torch_dir.parent, "torch/nn"),
        "torch-optim": (lambda: torch_dir.parent, "torch/optim"),
    }
    rows: list[dict] = []
    originals = {}
    try:
        for name in [t for t in args.trees.split(",") if t]:
            if name not in trees:
                parser.error(f"--trees: unknown tree {name!r} (choose from {', '.join(trees)})")
            root, sub = trees[name][0](), trees[name][1]
            files = py_files(root / sub)
            if args.match:
                files = [f for f in files if re.search(args.match, str(f.relative_to(root)))]
            files = files[: args.limit] if args.limit else files
            originals[name] = (root, sub, digest(snapshot(root, sub)))
            rows += bench_tree(name, root, sub, files, work, out, code, modes, args.jobs)
        training = None
        if not args.no_train:
            training = train_check(work, out, code, [r for r in rows if r["tree"] == "transformers"])
        for name, (root, sub, before) in originals.items():
            if digest(snapshot(root, sub)) != before:
                say(f"WARNING: the original tree {root / sub} changed during the bench")
    finally:
        if args.keep:
            say(f"(copies kept in {work})")
        else:
            shutil.rmtree(work, ignore_errors=True)

    say("\n== summary (fixinplace: " + describe_code(code) + ")")
    head = (f"{'tree':<13} {'files':>5} {'mode':<6} {'changed':>7} {'fixed':>5} {'remain':>6} {'2nd-run':>7} "
            f"{'no-compile':>10} {'check before':>12} {'check after':>11} {'wall':>8}")
    say(head)
    for r in rows:
        b = f"{r['before'][0]}/{r['before'][1]}"
        a = f"{r['after'][0]}/{r['after'][1]}"
        say(f"{r['tree']:<13} {r['files']:>5} {r['mode']:<6} {r['changed']:>7} {r['fixed']!s:>5} {r['remaining']!s:>6} "
            f"{len(r['second_changed']):>7} {len(r['not_compiling']):>10} {b:>12} {a:>11} {r['seconds']:>7.1f}s")
    say("(check before/after: errors/warnings; 2nd-run: files a second identical run changed, must be 0; "
        "no-compile: changed files that no longer compile, must be 0)")
    if training:
        c = training["comparison"]
        say(f"training check: whole transformers package, safe fixes: {training['files']} files, "
            f"{len(training['changed'])} changed, {len(training['not_compiling'])} not compiling, "
            f"{training['seconds']:.1f} s ({training['summary']}); families identical (loss, logits, gradients, "
            f"parameters after AdamW, bit for bit): {c['identical']}/{c['total']}")
        for row in c["rows"]:
            if not row["identical"]:
                say(f"   DIFFERS: {row['family']}: {'; '.join(row['problems'])} (patched files whose code ran: "
                    f"{', '.join(row['patched_ran']) or 'none'})")
    say(f"(total bench time {time.perf_counter() - started:.0f} s)")
    summary = {"code": describe_code(code),
               "rows": [{k: v for k, v in r.items() if k not in ("patched", "covered")} for r in rows],
               "training": training}
    (out / "summary.json").write_text(json.dumps(summary, indent=2, default=str) + "\n", encoding="utf-8")
    (out / "report.txt").write_text("\n".join(say.lines) + "\n", encoding="utf-8", errors="surrogateescape")
    return 0


if __name__ == "__main__":
    sys.exit(main())
