"""Precision of `fixinplace check` on popular PyTorch code, and its cold speed next to `ast.parse` (issue 25).

Thirteen well-used repositories, each pinned to one commit and cut down to its package folder (`REPOS`), are
checked with the default settings (an empty `[tool.fixinplace]` config, `--no-cache`: every run is cold). This
code is used and trained by many people, so an `error` here is most likely a false error, and each warning is
either useful to a reader or noise. The bench prints:

- per repository: the files checked, the errors, the warnings (by code), the wall and CPU seconds of the check
  run and the CPU seconds of `ast.parse` over the same files in one process (the baseline: issue 25 wants cold
  check CPU at most 3x ast.parse), then every error as `repo/file:line: code message`;
- the totals, and the CPU ratio over all repositories;
- 25 warnings drawn at random over all repositories (`random.Random(25)`, from the warnings sorted by repository,
  file, line and code), numbered, each with 3 lines of source either side, for a person to judge useful or noise;
- with `--fix`: the diff `fixinplace fix` prints for each tree (safe fixes only, nothing written), its hunks
  counted and printed, for a person to judge each rewrite (a needless `.clone()`, say).

CPU seconds are `resource.getrusage(RUSAGE_CHILDREN)` deltas around each child process (user + system, the
check's worker processes included: check waits for them). The `ast.parse` baseline includes the start of one
Python process; a notebook counts as the text of its code cells (an IPython `%`/`!` line as `pass`, a `%%` cell
left out).

Sources come from the bare mirror `$FIXINPLACE_MIRROR/<owner>+<name>/repo` (default `/work/.mirror`) when it has
the pinned commit (`git archive <commit> <subdir> | tar -x`), else from a blob-less clone of GitHub made in the
bench cache; either way the files land in `<bench cache>/popular/<owner>+<name>-<short sha>/` (see `_fetch.py`;
never committed). `check` and `fix` run from a snapshot of this checkout's `fixinplace/` (its working tree, or with
`--at REV` as committed at REV), so that an edit made during the run cannot change its results halfway.

Usage:
  python bench/popular.py [--repos whisper,peft,...] [--jobs N] [--fix] [--json OUT] [--at REV]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _fetch  # noqa: E402

# (owner/name, pinned commit, folder checked: "" for the whole repository)
REPOS: tuple[tuple[str, str, str], ...] = (
    ("Lightning-AI/litgpt", "26857050fe3ff627cd714fe92f5838f51a3d5efa", "litgpt"),
    ("facebookresearch/detectron2", "02b5c4e295e990042a714712c21dc79b731e8833", "detectron2"),
    ("facebookresearch/segment-anything", "dca509fe793f601edb92606367a655c15ac00fdf", "segment_anything"),
    ("huggingface/diffusers", "58eb52c0803ea9af3abec60841c2a093bdf1f951", "src/diffusers/models"),
    ("huggingface/peft", "5d602fdbff04c33c1c4de55cda9d4ae1d7cb7e40", "src/peft"),
    ("huggingface/pytorch-image-models", "aa4b5850c1543fa488abf260f18390eda46cf85d", "timm"),
    ("karpathy/nanoGPT", "3adf61e154c3fe3fca428ad6bc3818b27a3b8291", ""),
    ("lucidrains/denoising-diffusion-pytorch", "faed4db28e724735323fa91c70aa9b28a6e1cbac",
     "denoising_diffusion_pytorch"),
    ("lucidrains/x-transformers", "9252ed7838021ee61e6c5be0930b3a9a88efdf06", "x_transformers"),
    ("open-mmlab/mmocr", "966296f26ac34cf0e96d40ab4a0a94c9a697909a", "mmocr"),
    ("openai/whisper", "c0d2f624c09dc18e709e37c2ad90c039a4eb72a2", "whisper"),
    ("pyg-team/pytorch_geometric", "5c6461b2305ad068a6d61165b3c55852a11aaa41", "torch_geometric/nn"),
    ("ultralytics/yolov5", "5081342f04fb287fc2e5f2b5a4e06752b7937b1c", ""),
)
SAMPLE_SIZE = 25
SAMPLE_SEED = 25
CONTEXT = 3  # source lines shown either side of a sampled warning
CPU_GOAL = 3.0  # issue 25: cold check CPU at most this many times ast.parse's
# A unified diff's hunk header: old start, old count, new start, new count.
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")

# CPU seconds of `ast.parse` over the files named in a file (one a line), in this one process; prints the failures.
_AST_PARSE = r"""
import ast, json, sys
failed = 0
for path in open(sys.argv[1], encoding="utf-8").read().splitlines():
    data = open(path, "rb").read()
    if path.endswith(".ipynb"):
        try:
            cells = json.loads(data.decode("utf-8")).get("cells", [])
        except ValueError:
            failed += 1
            continue
        text = []
        for cell in cells:
            if cell.get("cell_type") == "code":
                src = cell.get("source", "")
                src = "".join(src) if isinstance(src, list) else src
                if src.lstrip().startswith("%%"):
                    continue  # a cell magic: not Python
                for l in src.splitlines():  # a line magic or shell escape becomes `pass`, as check masks it
                    body = l.lstrip()
                    text.append(l[: len(l) - len(body)] + "pass" if body.startswith(("%", "!")) else l)
        data = "\n".join(text) + "\n"
    try:
        ast.parse(data)
    except (SyntaxError, ValueError):
        failed += 1
print(failed)
"""


def short_name(repo: str) -> str:
    """The name a repository is shown and selected by (`openai/whisper` -> `whisper`)."""
    return repo.split("/", 1)[1]


def _git(*args: str, git_dir: Path | None = None, **kw) -> subprocess.CompletedProcess:
    pre = ["git"] + ([f"--git-dir={git_dir}"] if git_dir else [])
    return subprocess.run(pre + list(args), capture_output=True, **kw)


def _has_commit(git_dir: Path, commit: str) -> bool:
    """Whether the (bare) repository `git_dir` holds `commit`."""
    return git_dir.is_dir() and _git("cat-file", "-e", f"{commit}^{{commit}}", git_dir=git_dir).returncode == 0


def _archive(git_dir: Path, commit: str, subdir: str, target: Path) -> list[str]:
    """Unpack `subdir` (all of it when "") of `commit` into `target`; return the `.py` files git lists there that
    did not arrive (a mirror may lack some blobs: `git archive` then leaves them out)."""
    tar = target.parent / (target.name + ".tar")
    with open(tar, "wb") as out:
        proc = subprocess.run(["git", f"--git-dir={git_dir}", "archive", commit, *([subdir] if subdir else [])],
                              stdout=out, stderr=subprocess.PIPE)
    if proc.returncode:
        raise RuntimeError(f"git archive failed in {git_dir}: {proc.stderr.decode(errors='replace')[-500:]}")
    with tarfile.open(tar) as archive:
        archive.extractall(target, filter="data")
    tar.unlink()
    listed = _git("ls-tree", "-r", "--name-only", commit, *(["--", subdir] if subdir else []), git_dir=git_dir,
                  text=True, check=True).stdout.splitlines()
    return [p for p in listed if p.endswith(".py") and not (target / p).is_file()]


def materialise(repo: str, commit: str, subdir: str) -> Path:
    """The folder `subdir` of `repo` at `commit` is unpacked into (the root of the repository's files) in the bench
    cache, on first use: from the bare mirror when it has the commit (and every `.py` blob), else from a blob-less
    clone of GitHub in the cache."""
    slug = repo.replace("/", "+")
    target = _fetch.cache_dir() / "popular" / f"{slug}-{commit[:7]}"
    done = target / ".complete"
    if not done.exists():
        if target.exists():
            shutil.rmtree(target)
        target.mkdir(parents=True)
        mirror = Path(os.environ.get("FIXINPLACE_MIRROR", "/work/.mirror")) / slug / "repo"
        missing = ["(no mirror with the commit)"]
        if _has_commit(mirror, commit):
            try:
                missing = _archive(mirror, commit, subdir, target)
            except RuntimeError as e:
                missing = [str(e)]
            if missing:
                print(f"  note: the mirror of {repo} lacks {missing[0]}{' and more' if len(missing) > 1 else ''}; "
                      "cloning instead", file=sys.stderr)
        if missing:
            clone = _fetch.cache_dir() / "popular" / f"{slug}.git"
            if not _has_commit(clone, commit):
                shutil.rmtree(clone, ignore_errors=True)
                proc = _git("clone", "--quiet", "--bare", "--filter=blob:none", f"https://github.com/{repo}",
                            str(clone), text=True)
                if proc.returncode:
                    raise SystemExit(f"popular: no mirror of {repo} with {commit[:7]} and cloning it failed: "
                                     f"{proc.stderr.strip()[-500:]}")
            shutil.rmtree(target)
            target.mkdir()
            missing = _archive(clone, commit, subdir, target)
            if missing:
                raise SystemExit(f"popular: {repo}@{commit[:7]} still lacks {', '.join(missing[:5])}")
        done.touch()
    if not (target / subdir).is_dir():
        raise SystemExit(f"popular: {repo}@{commit[:7]} has no folder {subdir!r}")
    return target


def discovered_files(folder: Path, config: Path) -> list[Path]:
    """The files `check` finds under `folder` with the settings of `config` (for the count and the baseline), found
    by the `fixinplace` that `snapshot_env` put first on `sys.path`."""
    from fixinplace.discovery import discover
    from fixinplace.settings import load_settings

    found = discover([str(folder)], load_settings(config))
    return [Path(f).resolve() for f in found.files]


def timed(cmd: list[str], cwd: Path, env: dict | None = None,
          timeout: float = 1800) -> tuple[subprocess.CompletedProcess, float, float]:
    """Run `cmd` in `cwd` (output captured) and return it with its wall seconds and CPU seconds (user + system of it
    and the children it waited for: a `getrusage(RUSAGE_CHILDREN)` delta)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, env=env, timeout=timeout)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return proc, wall, cpu


def ast_baseline(files: list[Path], work: Path) -> dict:
    """Wall and CPU seconds of one Python process that `ast.parse`s every file once, and its parse failures."""
    listing = work / "files.txt"
    listing.write_text("\n".join(map(str, files)) + "\n", encoding="utf-8")
    proc, wall, cpu = timed([sys.executable, "-c", _AST_PARSE, str(listing)], work)
    return {"wall": wall, "cpu": cpu, "failed": int(proc.stdout.strip() or 0)}


def check_repo(label: str, base: Path, folder: Path, config: Path, jobs: int, env: dict) -> dict:
    """`fixinplace check --format json` over `folder` (run in the config's folder, with `env`), with its timing;
    diagnostics as dicts (path relative to `base`, prefixed with `label`)."""
    cmd = [sys.executable, "-m", "fixinplace", "check", "--format", "json", "--no-cache", "--config", str(config),
           "--jobs", str(jobs), str(folder)]
    proc, wall, cpu = timed(cmd, config.parent, env)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        raise SystemExit(f"popular: check of {label} exited {proc.returncode} without JSON: {proc.stderr[-2000:]}")
    diags = []
    for d in report["diagnostics"]:
        if d["severity"] not in ("error", "warning"):
            continue
        path = Path(d["path"]).resolve()
        diags.append({"repo": label, "file": str(path.relative_to(base)), "abs": str(path), "line": d["line"],
                      "cell": d.get("cell"), "code": d["code"], "severity": d["severity"], "message": d["message"],
                      "fix": (d.get("fix") or {}).get("applicability")})
    diags.sort(key=lambda r: (r["file"], r["line"], r["code"]))
    return {"wall": wall, "cpu": cpu, "rc": proc.returncode, "diagnostics": diags,
            "not_checked": report.get("errors", [])}


def fix_hunks(label: str, base: Path, folder: Path, config: Path, env: dict) -> dict:
    """The diff of `fixinplace fix` (safe fixes only, nothing written) over `folder` (run in the config's folder, with
    `env`), split into hunks, each headed by its file (relative to `base`, prefixed with `label`)."""
    cmd = [sys.executable, "-m", "fixinplace", "fix", "--no-cache", "--config", str(config), str(folder)]
    proc, wall, cpu = timed(cmd, config.parent, env)
    if proc.returncode not in (0, 1):
        print(f"  note: fix of {label} exited {proc.returncode}: {proc.stderr[-500:]}", file=sys.stderr)
    hunks, current_file, current, left = [], None, None, [0, 0]  # left: old and new lines the hunk still has
    for line in proc.stdout.splitlines():
        if current is not None and (left[0] > 0 or left[1] > 0 or line.startswith("\\")):
            current["lines"].append(line)
            if line[:1] in (" ", "-"):
                left[0] -= 1
            if line[:1] in (" ", "+"):
                left[1] -= 1
            continue
        current = None
        if line.startswith("+++ "):
            name = line[4:].split("\t")[0]
            name = name[2:] if name.startswith(("a/", "b/")) else name
            try:
                current_file = f"{label}/{(config.parent / name).resolve().relative_to(base)}"  # relative to cwd
            except ValueError:
                current_file = f"{label}/{name}"
        elif line.startswith("@@"):
            match = _HUNK.match(line)
            if match:
                left = [int(match[2] or 1), int(match[4] or 1)]
                current = {"file": current_file, "lines": [line]}
                hunks.append(current)
    summary = [l for l in (proc.stdout + proc.stderr).splitlines() if l.startswith("Would fix")]
    return {"wall": wall, "cpu": cpu, "rc": proc.returncode, "hunks": hunks, "summary": summary}


def source_context(diag: dict, around: int = CONTEXT) -> list[str]:
    """The lines around a diagnostic's line (a notebook's: in its cell), the line itself marked with `>`."""
    path = Path(diag["abs"])
    if diag.get("cell"):
        try:
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
            src = cells[diag["cell"] - 1].get("source", "")
            lines = ("".join(src) if isinstance(src, list) else src).splitlines()
        except (OSError, ValueError, KeyError, IndexError):
            return []
    else:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    lo, hi = max(1, diag["line"] - around), min(len(lines), diag["line"] + around)
    return [f"  {'>' if n == diag['line'] else ' '}{n:5d} | {lines[n - 1]}" for n in range(lo, hi + 1)]


def where(diag: dict) -> str:
    cell = f"[cell {diag['cell']}]" if diag.get("cell") else ""
    return f"{diag['repo']}/{diag['file']}{cell}:{diag['line']}"


def snapshot_env(work: Path, rev: str | None) -> tuple[dict, str]:
    """An environment that runs `fixinplace` from a copy of this checkout's package (of its working tree, or as
    committed at `rev`), also put first on this process's `sys.path`; and a line naming that copy.

    The children run in `work` (not in the checkout: `python -m` puts the working folder first on `sys.path`)."""
    snap = work / "src"
    if rev:
        snap.mkdir()
        tar = subprocess.run(["git", "archive", rev, "fixinplace"], cwd=_fetch.REPO, capture_output=True)
        if tar.returncode:
            raise SystemExit(f"popular: git archive {rev} failed: {tar.stderr.decode(errors='replace').strip()}")
        subprocess.run(["tar", "-x", "-C", str(snap)], input=tar.stdout, check=True)
    else:
        shutil.copytree(_fetch.REPO / "fixinplace", snap / "fixinplace", ignore=shutil.ignore_patterns("__pycache__"))
    sys.path.insert(0, str(snap))
    env = {**os.environ, "PYTHONPATH": str(snap)}
    head = _git("rev-parse", "--short", rev or "HEAD", cwd=_fetch.REPO, text=True).stdout.strip() or "?"
    if rev:
        return env, f"fixinplace as committed at {head} ({rev})"
    dirty = _git("status", "--porcelain", "fixinplace", cwd=_fetch.REPO, text=True).stdout.strip()
    return env, f"fixinplace at commit {head}{' plus uncommitted changes in fixinplace/' if dirty else ''}"


def selected(names: str | None) -> list[tuple[str, str, str]]:
    """The entries of `REPOS` named in a comma-separated list (short names or owner/name), or all of them."""
    if not names:
        return list(REPOS)
    wanted = {n.strip().lower() for n in names.split(",") if n.strip()}
    chosen = [r for r in REPOS if r[0].lower() in wanted or short_name(r[0]).lower() in wanted]
    known = {r[0].lower() for r in chosen} | {short_name(r[0]).lower() for r in chosen}
    if wanted - known:
        raise SystemExit(f"popular: unknown repositories {', '.join(sorted(wanted - known))}; known: "
                         + ", ".join(short_name(r[0]) for r in REPOS))
    return chosen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", help="comma-separated repositories to check (short names: whisper,peft,...)")
    parser.add_argument("--jobs", type=int, default=0, help="worker processes for check (0: one per CPU)")
    parser.add_argument("--fix", action="store_true", help="also print and count the hunks of `fixinplace fix`")
    parser.add_argument("--json", metavar="OUT", help="also write every count, diagnostic and the sample here")
    parser.add_argument("--at", metavar="REV", help="run fixinplace as committed at REV (git archive), not as the "
                                                     "working tree has it")
    args = parser.parse_args(argv)
    repos = selected(args.repos)
    work = Path(tempfile.mkdtemp(prefix="fixinplace-popular-"))
    config = work / "pyproject.toml"
    config.write_text("[tool.fixinplace]\n", encoding="utf-8")
    env, version = snapshot_env(work, args.at)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{version}; Python {sys.version.split()[0]}; {os.cpu_count()} CPUs (load average {load:.1f} at the "
          f"start); check --jobs {args.jobs}", flush=True)
    started = time.perf_counter()
    results = []
    for repo, commit, subdir in repos:
        label = short_name(repo)
        base = materialise(repo, commit, subdir)
        folder = base / subdir if subdir else base
        files = discovered_files(folder, config)
        baseline = ast_baseline(files, work)
        result = check_repo(label, base, folder, config, args.jobs, env)
        diags = result["diagnostics"]
        entry = {"repo": repo, "name": label, "commit": commit, "subdir": subdir, "folder": str(folder),
                 "files": len(files), "lines": sum(p.read_bytes().count(b"\n") for p in files),
                 "errors": sum(d["severity"] == "error" for d in diags),
                 "warnings": sum(d["severity"] == "warning" for d in diags),
                 "warning_codes": dict(sorted(Counter(d["code"] for d in diags if d["severity"] == "warning").items())),
                 "check": {k: result[k] for k in ("wall", "cpu", "rc")}, "ast_parse": baseline,
                 "not_checked": result["not_checked"], "diagnostics": diags}
        if args.fix:
            entry["fix"] = fix_hunks(label, base, folder, config, env)
        results.append(entry)
        ratio = result["cpu"] / baseline["cpu"] if baseline["cpu"] else float("inf")
        print(f"\n== {label} ({repo}@{commit[:7]}, {subdir or 'whole repository'}): {entry['files']} files, "
              f"{entry['lines']} lines, {entry['errors']} errors, {entry['warnings']} warnings "
              f"({', '.join(f'{c} {n}' for c, n in entry['warning_codes'].items()) or 'none'})"
              + (f", {len(result['not_checked'])} files not checked" if result["not_checked"] else ""))
        print(f"   check {result['wall']:.2f} s wall, {result['cpu']:.2f} s CPU; ast.parse {baseline['cpu']:.2f} s CPU"
              f" ({baseline['failed']} failed); CPU ratio {ratio:.1f}x", flush=True)
        for d in diags:
            if d["severity"] == "error":
                print(f"{where(d)}: {d['code']} {d['message']}")
        for err in result["not_checked"]:
            print(f"not checked: {err.get('path')}: {err.get('message')}")
        if args.fix:
            fx = entry["fix"]
            print(f"   fix: {len(fx['hunks'])} hunks ({fx['wall']:.2f} s wall); {' '.join(fx['summary'])}")
            for i, hunk in enumerate(fx["hunks"], 1):
                print(f"-- hunk {i}: {hunk['file']}")
                print("\n".join(hunk["lines"]))

    every = [d for r in results for d in r["diagnostics"]]
    warnings = [d for d in every if d["severity"] == "warning"]
    warnings.sort(key=lambda d: (d["repo"], d["file"], d["line"], d["code"]))
    sample = sorted(random.Random(SAMPLE_SEED).sample(range(len(warnings)), min(SAMPLE_SIZE, len(warnings))))
    sampled = [warnings[i] for i in sample]
    print(f"\n== {len(sampled)} warnings drawn at random (random.Random({SAMPLE_SEED})) from {len(warnings)}")
    for n, d in enumerate(sampled, 1):
        print(f"\n[{n}] {where(d)}: {d['code']} {d['message']}")
        print("\n".join(source_context(d)))

    check_cpu = sum(r["check"]["cpu"] for r in results)
    check_wall = sum(r["check"]["wall"] for r in results)
    parse_cpu = sum(r["ast_parse"]["cpu"] for r in results)
    totals = {"repos": len(results), "files": sum(r["files"] for r in results),
              "lines": sum(r["lines"] for r in results), "errors": sum(r["errors"] for r in results),
              "warnings": len(warnings), "warning_codes": dict(sorted(Counter(d["code"] for d in warnings).items())),
              "check_wall": check_wall, "check_cpu": check_cpu, "ast_parse_cpu": parse_cpu,
              "cpu_ratio": check_cpu / parse_cpu if parse_cpu else None}
    if args.fix:
        totals["fix_hunks"] = sum(len(r["fix"]["hunks"]) for r in results)
    print("\n== summary")
    print(f"   {'repository':<30} {'files':>6} {'lines':>7} {'errors':>6} {'warn.':>6} {'check s':>8} "
          f"{'check CPU':>9} {'ast CPU':>8} {'ratio':>6}" + (f" {'hunks':>6}" if args.fix else ""))
    for r in results:
        c, a = r["check"], r["ast_parse"]
        print(f"   {r['name']:<30} {r['files']:>6} {r['lines']:>7} {r['errors']:>6} {r['warnings']:>6} "
              f"{c['wall']:>8.2f} {c['cpu']:>9.2f} {a['cpu']:>8.2f} {c['cpu'] / max(a['cpu'], 1e-9):>5.1f}x"
              + (f" {len(r['fix']['hunks']):>6}" if args.fix else ""))
    print(f"total: {totals['repos']} repositories, {totals['files']} files, {totals['lines']} lines, "
          f"{totals['errors']} errors, {totals['warnings']} warnings "
          f"({', '.join(f'{c} {n}' for c, n in totals['warning_codes'].items()) or 'none'})"
          + (f", {totals['fix_hunks']} fix hunks" if args.fix else ""))
    if parse_cpu:
        verdict = "met" if totals["cpu_ratio"] <= CPU_GOAL else "MISSED"
        print(f"cold check CPU {check_cpu:.1f} s ({check_wall:.1f} s wall) / ast.parse CPU {parse_cpu:.1f} s = "
              f"{totals['cpu_ratio']:.1f}x (goal <= {CPU_GOAL:g}x: {verdict})")
    print(f"(total bench time {time.perf_counter() - started:.0f} s)")
    if args.json:
        data = {"version": version, "jobs": args.jobs, "totals": totals, "repos": results, "sample": sampled}
        target = Path(args.json)
        tmp = target.with_name(target.name + ".tmp")
        tmp.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        tmp.replace(target)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
