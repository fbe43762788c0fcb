"""Precision of `fixinplace check` on real training code: errors and warnings on code known to work.

Trees checked (each with one `python -m fixinplace check --format json` run):
  transformers   the modeling files of the tiny models that `bench/train_models.py` trained (forward, backward and
                 an AdamW step on CPU: this code works, so an `error` there is a false error)
  torch/optim    of the installed torch
  torch/nn/modules

For each tree it prints the files checked, the counts of errors and warnings, and every error and warning as
`file:line: code severity message`. The goal is zero errors; every warning is listed so that its count can go down.
It also checks that `check` reports the known in-place bugs of transformers that `train_models.py` reproduces (a
model configuration that raises "modified by an inplace operation" under torch).

Usage:
  python bench/precision.py [--out FILE] [--jobs N]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fetch  # noqa: E402
import train_models  # noqa: E402


def check_tree(root: Path, files: list[Path], jobs: int) -> dict:
    """Run `fixinplace check --format json` on `files` (with the default settings, no project config)."""
    with tempfile.TemporaryDirectory() as tmp:
        config = Path(tmp) / "pyproject.toml"
        config.write_text("[tool.fixinplace]\n", encoding="utf-8")
        cmd = [sys.executable, "-m", "fixinplace", "check", "--format", "json", "--config", str(config),
               "--jobs", str(jobs), *map(str, files)]
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=_fetch.REPO, timeout=1800)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"precision: check exited {proc.returncode} without JSON: {proc.stderr[-2000:]}")
    rows = []
    for d in report["diagnostics"]:
        if d["severity"] not in ("error", "warning"):
            continue
        rel = Path(d["path"]).resolve().relative_to(root)
        rows.append((str(rel), d["line"], d["code"], d["severity"], d["message"]))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    return {"files": len(files), "rows": rows, "errors": report.get("errors", [])}


def known_hazards(models: dict, jobs: int) -> list[str]:
    """For each configuration that raised under torch, whether `check` reports the write that broke it: an error or
    warning in that file naming the line where anomaly mode says the saved tensor was made."""
    package = Path(models["package"])
    lines = []
    for hazard in models.get("hazards", []):
        if not hazard["raised"]:
            lines.append(f"known hazard {hazard['family']}: did not raise under torch (nothing to find)")
            continue
        for rel, saved_line in hazard["saved_at"]:
            result = check_tree(package.parent, [package / rel], jobs)
            hits = [r for r in result["rows"] if r[0] == f"transformers/{rel}" and f"at line {saved_line} " in r[4]]
            found = ", ".join(f"{r[3]} {r[2]} at line {r[1]}" for r in hits) or "MISSED"
            lines.append(f"known hazard {hazard['family']} (raises under torch; saved tensor made at "
                         f"transformers/{rel}:{saved_line}): {found}")
    return lines


def trees(models: dict) -> list[tuple[str, Path, list[Path]]]:
    """(label, root for display, files) of every tree this bench checks."""
    failed = [f["family"] for f in models["families"] if not f["ok"]]
    if failed:
        raise SystemExit(f"precision: these model families did not train: {', '.join(failed)}")
    package = Path(models["package"])
    modeling = sorted({package / f for fam in models["families"] for f in fam["files"]})
    torch_dir = _fetch.installed_torch_dir()
    out = [("transformers (%d families that ran)" % len(models["families"]), package.parent, modeling)]
    for sub in ("optim", "nn/modules"):
        out.append((f"torch/{sub}", torch_dir.parent, sorted((torch_dir / sub).rglob("*.py"))))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="also write the report to this file")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes for check (0: one per CPU)")
    args = parser.parse_args(argv)
    lines = []
    totals = [0, 0]
    summary = []
    models = train_models.run_models()
    for label, root, files in trees(models):
        result = check_tree(root, files, args.jobs)
        errors = sum(r[3] == "error" for r in result["rows"])
        warnings = sum(r[3] == "warning" for r in result["rows"])
        totals[0] += errors
        totals[1] += warnings
        summary.append(f"{label}: {result['files']} files, {errors} errors, {warnings} warnings"
                       + (f", {len(result['errors'])} files not checked" if result["errors"] else ""))
        lines.append(f"== {summary[-1]}")
        for path, line, code, severity, message in result["rows"]:
            lines.append(f"{path}:{line}: {code} {severity} {message}")
        for err in result["errors"]:
            lines.append(f"not checked: {err['path']}: {err['message']}")
    lines.append("== known hazards in transformers (must be reported)")
    lines += known_hazards(models, args.jobs)
    lines.append("== summary")
    lines += summary
    lines.append(f"total: {totals[0]} errors, {totals[1]} warnings")
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        target = Path(args.out)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
