"""`fixinplace fix` against the before/after pairs in fixtures/fix/, proven by running the programs under torch.

Each folder `fixtures/fix/<nn>_<strategy>_<what>/` holds:

* `before.py`: a deterministic CPU program with one in-place hazard (it raises the autograd in-place error or the
  leaf error, or silently corrupts a gradient: `case.json`'s `before_outcome`, re-measured here);
* `case.json`: `{"strategy", "applicability", "before_outcome"}`, and `"fix_style": "functional"` for a rewrite
  of the functional style (`fix --fix-style functional`); `applicability` is `safe` (fixed by
  `fix --apply`), `unsafe` (fixed only with `--unsafe-fixes`; without it the file stays byte-identical), or
  `not-safe` (rebinding would lose a visible mutation: without `--unsafe-fixes` the file stays byte-identical,
  or whatever safe fix is applied must run like `reference.py`);
* `after.py` (fix cases): the exact text `fixinplace fix --apply` must produce from `before.py`;
* `reference.py`: the same program written by hand without the hazard (for `not-safe` cases: the intended
  behaviour, mutation kept visible);
* `notes.md` (`not-safe` cases): what must happen.

For a fix case: the fix, run as a real subprocess on a copy, produces exactly `after.py` (and exits 0); applying it
again changes nothing; `after.py` runs without an autograd error and its outputs and gradients equal
`reference.py`'s (same keys, dtype, shape, allclose), and also the gradients PyTorch computes for `before.py` under
before.py run with every saved tensor copied at save time when the hazard is not the leaf error; `fixinplace check` reports no error or
warning on `after.py`; `check --format json` offers the fix with the case's applicability; `fix` without
`--apply` prints exactly the diff of what `--apply` writes.

Over fixtures/check/: every program measured `ok` comes out of `fix --apply` byte-identical (with and without
`--unsafe-fixes`); every hazardous seed program (`seed` in its name) is fixed: afterwards `check` reports nothing
and the program runs under torch without an autograd error.

`fix` runs over folders of copies, one run per set of flags (a few interpreters, not several per case; the files
do not import each other, so each is fixed as it would be alone). Programs run under torch in a separate
interpreter (all programs of a kind in one, to import torch once; each is imported fresh by path and its `main()`
called after `random.seed(0)` and `torch.manual_seed(0)`).
"""

from __future__ import annotations

import difflib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from clirun import child_env, cli

REPO = Path(__file__).resolve().parent.parent
FIX_DIR = REPO / "fixtures" / "fix"
CHECK_DIR = REPO / "fixtures" / "check"
TRUTH_PATH = CHECK_DIR / "truth.json"

CASES = sorted(d.name for d in FIX_DIR.iterdir() if d.is_dir() and (d / "case.json").exists())
STRATEGIES = (
    "clone_before_write",
    "method_out_of_place",
    "augassign_out_of_place",
    "remove_inplace",
    "out_to_assignment",
    "wrap_no_grad",
    "clone_at_save",
    "move_after_backward",
    "data_out_of_place",
    "setitem_out_of_place",
)
# Rewrites that change what the program computes on purpose (an update moved after the backward, a `.data` write
# made differentiable): reference.py is their only truth, not the original run with its saves copied.
CHANGES_MEANING = ("move_after_backward", "data_out_of_place")
HAZARD_OUTCOMES = ("raises-saved", "raises-leaf", "raises-view", "silent", "misleads")
HAS_TORCH = importlib.util.find_spec("torch") is not None


def load_case(name: str) -> dict:
    return json.loads((FIX_DIR / name / "case.json").read_text(encoding="utf-8"))


FIX_CASES = [n for n in CASES if load_case(n)["applicability"] in ("safe", "unsafe")]
NOT_SAFE_CASES = [n for n in CASES if load_case(n)["applicability"] == "not-safe"]
TRUTH = json.loads(TRUTH_PATH.read_text(encoding="utf-8"))
SAFE_CHECK_PROGRAMS = sorted(n for n, e in TRUTH.items() if e["outcome"] == "ok")
HAZARDOUS_SEED_PROGRAMS = sorted(n for n, e in TRUTH.items() if "seed" in n and e["outcome"] in HAZARD_OUTCOMES)


# ---------------------------------------------------------------------------------------------------------------
# Running fixinplace as a real subprocess.
# ---------------------------------------------------------------------------------------------------------------


def fixinplace(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return cli(*args, cwd=cwd, env=child_env(NO_COLOR="1"))


def fix_folder(folder: Path, *, unsafe: bool, apply: bool = True, style: str = "readable"
               ) -> subprocess.CompletedProcess:
    """One `fixinplace fix` run over every file in `folder` (one interpreter for many programs)."""
    args = ["fix"] + (["--apply"] if apply else []) + (["--unsafe-fixes"] if unsafe else [])
    return fixinplace(*args, "--fix-style", style, ".", cwd=folder)


def check_json(*paths: Path, cwd: Path | None = None) -> tuple[dict[Path, list[dict]], subprocess.CompletedProcess]:
    """The error/warning diagnostics of one `fixinplace check --format json` run, per resolved path."""
    cwd = cwd or paths[0].parent
    proc = fixinplace("check", "--format", "json", *(os.path.relpath(p, cwd) for p in paths), cwd=cwd)
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        pytest.fail(f"`check --format json` exited {proc.returncode} without JSON:\n{proc.stdout}\n{proc.stderr}",
                    pytrace=False)
    if report.get("errors"):
        pytest.fail(f"`check` could not analyse: {report['errors']}", pytrace=False)
    by_path: dict[Path, list[dict]] = {p.resolve(): [] for p in paths}
    for d in report["diagnostics"]:
        if d["severity"] in ("error", "warning"):
            by_path.setdefault((cwd / d["path"]).resolve(), []).append(d)
    return by_path, proc


@pytest.fixture(scope="module")
def case_reports() -> tuple[dict[Path, list[dict]], subprocess.CompletedProcess]:
    """One `check --format json` run over every case's before.py and after.py."""
    paths = [FIX_DIR / n / f for n in CASES for f in ("before.py", "after.py") if (FIX_DIR / n / f).exists()]
    return check_json(*paths, cwd=REPO)


def describe(proc: subprocess.CompletedProcess) -> str:
    return f"exit {proc.returncode}\n--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"


def copy_to(tmp_path: Path, src: Path, name: str = "program.py") -> Path:
    dst = tmp_path / name
    shutil.copyfile(src, dst)
    return dst


# ---------------------------------------------------------------------------------------------------------------
# Running the programs under torch (fresh subprocess per call).
# ---------------------------------------------------------------------------------------------------------------

# argv: OUT_FILE then (PATH MODE)...; MODE is "plain" or "snapshot" (every tensor autograd saves is a private copy
# taken at save time: the meaning of a program that writes saved tensors, ../shared/FACTS.md; unlike
# allow_mutation_on_saved_tensors, also right when a written tensor is read again). Writes with torch.save a list with one
# dict per program: {"outcome", "message", "result"} where result maps main()'s keys to detached tensors/None/numbers.
RUNNER = r'''
import importlib.util, random, sys, traceback
from pathlib import Path
import torch
import torch.autograd.graph as graph

torch.set_num_threads(1)
sys.dont_write_bytecode = True
out_file, jobs = sys.argv[1], sys.argv[2:]
results = []
for i in range(0, len(jobs), 2):
    path, mode = Path(jobs[i]), jobs[i + 1]
    entry = {"path": str(path), "mode": mode, "outcome": "ok", "message": "", "result": None}
    try:
        spec = importlib.util.spec_from_file_location(f"fix_fixture_{i}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        random.seed(0)
        torch.manual_seed(0)
        if mode == "snapshot":
            with graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
                value = module.main()
        else:
            value = module.main()
        result = {}
        for key, item in value.items():
            result[key] = item.detach().clone() if isinstance(item, torch.Tensor) else item
        entry["result"] = result
    except BaseException as exc:
        text = str(exc)
        if "modified by an inplace operation" in text:
            entry["outcome"] = "raises-saved"
        elif "a leaf Variable that requires grad" in text or "a view of a leaf Variable that requires grad" in text:
            entry["outcome"] = "raises-leaf"
        else:
            entry["outcome"] = "other-error"
        entry["message"] = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))[-3000:]
    results.append(entry)
torch.save(results, out_file)
'''


def run_programs(tmp_path: Path, jobs: list[tuple[Path, str]]) -> list[dict]:
    import torch

    out_file = tmp_path / "results.pt"
    argv = [str(out_file)] + [str(x) for path, mode in jobs for x in (path, mode)]
    env = child_env(PYTHONHASHSEED="0", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", PYTHONDONTWRITEBYTECODE="1")
    proc = subprocess.run([sys.executable, "-c", RUNNER, *argv], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0 and out_file.exists(), f"the runner failed: {describe(proc)}"
    return torch.load(out_file, weights_only=False)


def differences(got: dict, want: dict) -> list[str]:
    """Key by key: same keys, tensors of the same dtype and shape and allclose, other values equal."""
    import torch

    diffs = []
    for key in sorted(set(got) | set(want)):
        a, b = got.get(key, "<missing>"), want.get(key, "<missing>")
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            if a.shape != b.shape or a.dtype != b.dtype:
                diffs.append(f"{key}: {tuple(a.shape)}/{a.dtype} vs {tuple(b.shape)}/{b.dtype}")
            elif not torch.allclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True):
                err = (a.double() - b.double()).abs().nan_to_num(float("inf")).max().item()
                diffs.append(f"{key}: max abs difference {err:.4g}")
        elif isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor) or a != b:
            diffs.append(f"{key}: {a!r} vs {b!r}")
    return diffs


# ---------------------------------------------------------------------------------------------------------------
# The fixtures themselves.
# ---------------------------------------------------------------------------------------------------------------


def test_every_strategy_has_cases():
    counts = {s: sum(load_case(n)["strategy"] == s for n in FIX_CASES) for s in STRATEGIES}
    assert all(c >= 2 for c in counts.values()), counts
    assert counts["clone_before_write"] >= 5, counts
    assert len(NOT_SAFE_CASES) >= 3, NOT_SAFE_CASES


@pytest.mark.parametrize("name", CASES)
def test_case_folder_is_complete(name: str):
    folder = FIX_DIR / name
    case = load_case(name)
    assert set(case) - {"fix_style"} == {"strategy", "applicability", "before_outcome"}, case
    assert case.get("fix_style", "readable") in ("readable", "functional"), case
    assert case["before_outcome"] in HAZARD_OUTCOMES, case
    assert (folder / "before.py").exists() and (folder / "reference.py").exists()
    if case["applicability"] == "not-safe":
        assert case["strategy"] is None and (folder / "notes.md").exists() and not (folder / "after.py").exists()
    else:
        assert case["applicability"] in ("safe", "unsafe"), case
        assert case["strategy"] in STRATEGIES and name.split("_", 1)[1].startswith(case["strategy"]), case
        assert (folder / "after.py").exists()
    allowed = set(sys.stdlib_module_names) | {"torch", "__future__"}
    for path in sorted(folder.glob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert source.endswith('\n\nif __name__ == "__main__":\n    main()\n'), path
        assert "# hazard" not in source, f"{path}: the hazard is recorded in case.json, not in a comment"
        for line in source.splitlines():
            words = line.split()
            if words[:1] in (["import"], ["from"]):
                assert words[1].split(".")[0] in allowed, f"{path}: {line}"


@pytest.fixture(scope="module")
def case_runs(tmp_path_factory) -> dict:
    """Every case's programs run once, in one subprocess (importing torch once): {(case, file, mode): entry}."""
    if not HAS_TORCH:
        pytest.skip("torch is not installed: the programs cannot be run")
    jobs = []
    for name in CASES:
        folder = FIX_DIR / name
        jobs += [(folder / "before.py", "plain"), (folder / "before.py", "snapshot")]
        jobs += [(folder / f, "plain") for f in ("reference.py", "after.py") if (folder / f).exists()]
    runs = run_programs(tmp_path_factory.mktemp("case_runs"), jobs)
    return {(Path(r["path"]).parent.name, Path(r["path"]).name, r["mode"]): r for r in runs}


@pytest.mark.parametrize("name", CASES)
def test_before_is_hazardous_and_reference_is_not(name: str, case_runs: dict, case_reports: tuple):
    """before.py measures as case.json says (raises, or runs with results that differ from its intended ones under
    its saved tensors copied at save time); reference.py runs; `fixinplace check` reports before.py."""
    folder = FIX_DIR / name
    case = load_case(name)
    before, intended = case_runs[name, "before.py", "plain"], case_runs[name, "before.py", "snapshot"]
    reference = case_runs[name, "reference.py", "plain"]
    assert reference["outcome"] == "ok", f"reference.py fails:\n{reference['message']}"
    outcome = before["outcome"]
    if outcome == "ok":
        assert intended["outcome"] == "ok", intended["message"]
        outcome = "silent" if differences(before["result"], intended["result"]) else "ok"
    assert outcome == case["before_outcome"], f"before.py measured {outcome}:\n{before['message']}"
    reports, proc = case_reports
    assert reports[(folder / "before.py").resolve()], (
        f"`fixinplace check` reports no error or warning on {name}/before.py: {describe(proc)}")


# ---------------------------------------------------------------------------------------------------------------
# Fix cases.
# ---------------------------------------------------------------------------------------------------------------


def group_of(name: str) -> tuple[bool, str]:
    """(unsafe, style): the flags `fix` needs for a case."""
    case = load_case(name)
    return case["applicability"] == "unsafe", case.get("fix_style", "readable")


def copies(folder: Path, names: list[str], file: str) -> dict[str, Path]:
    """`folder/<case>/program.py`, a copy of each case's `file`."""
    out = {}
    for name in names:
        (folder / name).mkdir(parents=True)
        out[name] = copy_to(folder / name, FIX_DIR / name / file)
    return out


@dataclass
class FolderRun:
    """One `fix` run over a folder of case copies: the process and each case's file afterwards."""

    proc: subprocess.CompletedProcess
    paths: dict[str, Path]
    texts: dict[str, str]


def run_fix_over(folder: Path, names: list[str], file: str, **flags) -> FolderRun:
    paths = copies(folder, names, file)
    proc = fix_folder(folder, **flags)
    return FolderRun(proc, paths, {n: p.read_text(encoding="utf-8") for n, p in paths.items()})


def by_group(names: list[str]) -> dict[tuple[bool, str], list[str]]:
    groups: dict[tuple[bool, str], list[str]] = {}
    for name in names:
        groups.setdefault(group_of(name), []).append(name)
    return groups


@pytest.fixture(scope="module")
def fix_runs(tmp_path_factory) -> dict[str, dict]:
    """Every fix case's before.py and after.py copied into folders and fixed together, one `fix` run per kind
    (a few interpreters instead of several per case): {kind: {(unsafe, style): FolderRun}}.

    * "apply": before.py, `fix --apply` with the case's flags; "unsafe-without": before.py of the unsafe cases,
      `fix --apply` without --unsafe-fixes; "diff": before.py, `fix` without --apply;
    * "again-diff" / "again-apply": after.py, `fix` and `fix --apply`, both with --unsafe-fixes."""
    runs: dict[str, dict] = {"apply": {}, "unsafe-without": {}, "diff": {}, "again-diff": {}, "again-apply": {}}
    for (unsafe, style), names in by_group(FIX_CASES).items():
        tag = f"{'unsafe' if unsafe else 'safe'}-{style}"
        runs["apply"][unsafe, style] = run_fix_over(tmp_path_factory.mktemp("apply-" + tag), names, "before.py",
                                                    unsafe=unsafe, style=style)
        runs["diff"][unsafe, style] = run_fix_over(tmp_path_factory.mktemp("diff-" + tag), names, "before.py",
                                                   unsafe=unsafe, style=style, apply=False)
        if unsafe:
            runs["unsafe-without"][unsafe, style] = run_fix_over(
                tmp_path_factory.mktemp("without-" + tag), names, "before.py", unsafe=False, style=style)
    for style in sorted({group_of(n)[1] for n in FIX_CASES}):
        names = [n for n in FIX_CASES if group_of(n)[1] == style]
        runs["again-diff"][True, style] = run_fix_over(tmp_path_factory.mktemp("again-diff-" + style), names,
                                                       "after.py", unsafe=True, style=style, apply=False)
        runs["again-apply"][True, style] = run_fix_over(tmp_path_factory.mktemp("again-apply-" + style), names,
                                                        "after.py", unsafe=True, style=style)
    return runs


@pytest.mark.parametrize("name", FIX_CASES)
def test_fix_produces_after(name: str, fix_runs: dict):
    """`fix --apply` (with `--unsafe-fixes` only for unsafe cases) turns a copy of before.py into after.py exactly;
    an unsafe case is left byte-identical without `--unsafe-fixes`."""
    unsafe, style = group_of(name)
    before = (FIX_DIR / name / "before.py").read_text(encoding="utf-8")
    expected = (FIX_DIR / name / "after.py").read_text(encoding="utf-8")
    if unsafe:
        without = fix_runs["unsafe-without"][unsafe, style]
        assert without.texts[name] == before, f"an unsafe fix was applied without --unsafe-fixes:\n{without.texts[name]}"
        assert without.proc.returncode == 1, f"the hazards remain, so the exit status must be 1: {describe(without.proc)}"
    run = fix_runs["apply"][unsafe, style]
    got = run.texts[name]
    assert got == expected, (
        f"{name}: the fix differs from after.py ({describe(run.proc)})\n--- got ---\n{got}\n--- expected ---\n{expected}")
    assert run.proc.returncode == 0, f"no hazard remains, so the exit status must be 0: {describe(run.proc)}"


@pytest.mark.parametrize("name", FIX_CASES)
def test_fix_is_idempotent_on_after(name: str, fix_runs: dict):
    """Fixing after.py again (even with --unsafe-fixes) changes nothing; the diff mode prints nothing, exits 0."""
    style = group_of(name)[1]
    shown, applied = fix_runs["again-diff"][True, style], fix_runs["again-apply"][True, style]
    path = shown.paths[name].relative_to(shown.paths[name].parent.parent).as_posix()
    assert f"/{path}" not in shown.proc.stdout, f"`fix` wants to change after.py: {describe(shown.proc)}"
    assert (shown.proc.returncode, shown.proc.stdout.strip()) == (0, ""), describe(shown.proc)
    original = (FIX_DIR / name / "after.py").read_text(encoding="utf-8")
    assert applied.texts[name] == original, f"fixing after.py again changed it:\n{applied.texts[name]}"
    assert applied.proc.returncode == 0, describe(applied.proc)


@pytest.mark.parametrize("name", FIX_CASES)
def test_diff_mode_prints_what_apply_writes(name: str, fix_runs: dict):
    """`fix` without --apply leaves before.py alone and prints the unified diff of exactly what `fix --apply`
    writes (exit 1 when a diff is not empty, else 0)."""
    group = group_of(name)
    shown, applied = fix_runs["diff"][group], fix_runs["apply"][group]
    before = (FIX_DIR / name / "before.py").read_text(encoding="utf-8")
    assert shown.texts[name] == before, "`fix` without --apply changed the file"
    path = shown.paths[name].relative_to(shown.paths[name].parent.parent).as_posix()
    expected = "".join(difflib.unified_diff(before.splitlines(True), applied.texts[name].splitlines(True),
                                            f"a/{path}", f"b/{path}"))
    assert expected and expected in shown.proc.stdout, (
        f"the printed diff is not what --apply writes:\n{expected}\n{describe(shown.proc)}")
    assert shown.proc.returncode == 1, describe(shown.proc)


@pytest.mark.parametrize("name", FIX_CASES)
def test_after_checks_clean(name: str, case_reports: tuple):
    reports, proc = case_reports
    diags = reports[(FIX_DIR / name / "after.py").resolve()]
    assert not diags, f"`fixinplace check` still reports on {name}/after.py: {describe(proc)}"


@pytest.mark.parametrize("name", FIX_CASES)
def test_check_json_offers_the_fix(name: str, case_reports: tuple):
    """`check --format json` on before.py fills `fix` with the case's applicability on every error/warning."""
    case = load_case(name)
    reports, proc = case_reports
    diags = reports[(FIX_DIR / name / "before.py").resolve()]
    assert diags, describe(proc)
    for d in diags:
        fix = d.get("fix")
        assert fix and fix.get("applicability") == case["applicability"] and fix.get("description"), (
            f"line {d['line']} {d['code']}: fix {fix!r}, expected applicability {case['applicability']!r}")


@pytest.mark.parametrize("name", FIX_CASES)
def test_after_matches_reference(name: str, case_runs: dict):
    """after.py runs without an autograd error; its outputs and gradients equal reference.py's (and, where the
    hazard is not the leaf error, those of before.py run with every saved tensor copied at save time)."""
    case = load_case(name)
    after, reference = case_runs[name, "after.py", "plain"], case_runs[name, "reference.py", "plain"]
    assert after["outcome"] == "ok", f"after.py fails:\n{after['message']}"
    assert reference["outcome"] == "ok", f"reference.py fails:\n{reference['message']}"
    diffs = differences(after["result"], reference["result"])
    assert not diffs, "after.py vs reference.py: " + "; ".join(diffs)
    if case["before_outcome"] != "raises-leaf" and case["strategy"] not in CHANGES_MEANING:
        intended = case_runs[name, "before.py", "snapshot"]
        assert intended["outcome"] == "ok", intended["message"]
        diffs = differences(after["result"], intended["result"])
        assert not diffs, "after.py vs before.py run with its saved tensors copied at save: " + "; ".join(diffs)


# ---------------------------------------------------------------------------------------------------------------
# Cases without a safe fix.
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def not_safe_fixed(tmp_path_factory) -> tuple[FolderRun, dict[Path, list[dict]], subprocess.CompletedProcess, dict]:
    """`fix --apply` without --unsafe-fixes over copies of every not-safe case's before.py; one `check` of the
    originals and the results; the changed programs and their references run under torch (one interpreter)."""
    folder = tmp_path_factory.mktemp("not-safe")
    run = run_fix_over(folder, NOT_SAFE_CASES, "before.py", unsafe=False)
    originals = [FIX_DIR / n / "before.py" for n in NOT_SAFE_CASES]
    reports, check_proc = check_json(*originals, *run.paths.values(), cwd=REPO)
    changed = [n for n in NOT_SAFE_CASES if run.texts[n] != (FIX_DIR / n / "before.py").read_text(encoding="utf-8")]
    runs = {}
    if changed and HAS_TORCH:
        jobs = [(p, "plain") for n in changed for p in (run.paths[n], FIX_DIR / n / "reference.py")]
        results = run_programs(tmp_path_factory.mktemp("not-safe-runs"), jobs)
        runs = {n: (results[2 * i], results[2 * i + 1]) for i, n in enumerate(changed)}
    return run, reports, check_proc, runs


@pytest.mark.parametrize("name", NOT_SAFE_CASES)
def test_no_safe_fix_changes_behaviour(name: str, not_safe_fixed: tuple):
    """Without --unsafe-fixes the file stays byte-identical, or what a safe fix made runs like reference.py and
    checks clean; `check --format json` marks no behaviour-changing fix `safe`."""
    run, reports, check_proc, runs = not_safe_fixed
    before = (FIX_DIR / name / "before.py").read_text(encoding="utf-8")
    if run.texts[name] == before:
        assert run.proc.returncode == 1, f"the hazard remains, so the exit status must be 1: {describe(run.proc)}"
        diags = reports[(FIX_DIR / name / "before.py").resolve()]
        assert diags, describe(check_proc)
        for d in diags:
            fix = d.get("fix") or {}
            assert fix.get("applicability") != "safe", (
                f"line {d['line']}: a fix is marked safe but `fix --apply` did not apply it: {fix}")
        return
    # A safe fix was applied: it must keep behaviour.
    fixed = run.texts[name]
    diags = reports[run.paths[name].resolve()]
    assert not diags, f"after the safe fix, check still reports:\n{fixed}\n{describe(check_proc)}"
    if not HAS_TORCH:
        pytest.skip("torch is not installed: cannot prove the applied safe fix keeps behaviour")
    fixed_run, reference = runs[name]
    assert fixed_run["outcome"] == "ok", f"the safely fixed program fails:\n{fixed}\n{fixed_run['message']}"
    diffs = differences(fixed_run["result"], reference["result"])
    assert not diffs, f"a 'safe' fix changed behaviour:\n{fixed}\n" + "; ".join(diffs)


# ---------------------------------------------------------------------------------------------------------------
# fixtures/check: safe programs untouched, hazardous seeds fixed.
# ---------------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def safe_programs_fixed(tmp_path_factory) -> dict:
    """`fix --apply` (without and with --unsafe-fixes) run once over copies of all the safe programs:
    {flag: (process, {name: text afterwards})}."""
    out = {}
    for unsafe in (False, True):
        folder = tmp_path_factory.mktemp("unsafe" if unsafe else "safe")
        for name in SAFE_CHECK_PROGRAMS:
            shutil.copyfile(CHECK_DIR / name, folder / name)
        proc = fixinplace("fix", "--apply", *(["--unsafe-fixes"] if unsafe else []), ".", cwd=folder)
        out[unsafe] = (proc, {name: (folder / name).read_bytes() for name in SAFE_CHECK_PROGRAMS})
    return out


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe-fixes", "unsafe-fixes"])
@pytest.mark.parametrize("name", SAFE_CHECK_PROGRAMS)
def test_safe_check_program_unchanged(name: str, unsafe: bool, safe_programs_fixed: dict):
    proc, texts = safe_programs_fixed[unsafe]
    assert texts[name] == (CHECK_DIR / name).read_bytes(), (
        f"a safe program was changed:\n{texts[name].decode('utf-8')}\n{describe(proc)}")
    assert proc.returncode == 0, f"`fix --apply` over the safe programs: {describe(proc)}"


@pytest.fixture(scope="module")
def seeds_fixed(tmp_path_factory) -> tuple[subprocess.CompletedProcess, dict[str, Path], dict, subprocess.CompletedProcess,
                                           dict]:
    """`fix --apply --unsafe-fixes` once over copies of every hazardous seed program, one `check` of the results,
    and every fixed program run under torch in one interpreter."""
    folder = tmp_path_factory.mktemp("seeds")
    paths = {name: copy_to(folder, CHECK_DIR / name, name) for name in HAZARDOUS_SEED_PROGRAMS}
    proc = fixinplace("fix", "--apply", "--unsafe-fixes", ".", cwd=folder)
    reports, check_proc = check_json(*paths.values(), cwd=folder)
    runs = {}
    if HAS_TORCH:
        results = run_programs(tmp_path_factory.mktemp("seed-runs"), [(p, "plain") for p in paths.values()])
        runs = dict(zip(paths, results))
    return proc, paths, reports, check_proc, runs


@pytest.mark.parametrize("name", HAZARDOUS_SEED_PROGRAMS)
def test_hazardous_seed_program_fixed(name: str, seeds_fixed: tuple):
    proc, paths, reports, check_proc, runs = seeds_fixed
    fixed = paths[name].read_text(encoding="utf-8")
    assert fixed != (CHECK_DIR / name).read_text(encoding="utf-8"), f"nothing was fixed: {describe(proc)}"
    assert proc.returncode == 0, f"hazards remain after fixing the seed programs: {describe(proc)}"
    diags = reports[paths[name].resolve()]
    assert not diags, f"check still reports on the fixed program:\n{fixed}\n{describe(check_proc)}"
    if not HAS_TORCH:
        pytest.skip("torch is not installed: cannot run the fixed program")
    run = runs[name]
    assert run["outcome"] == "ok", f"the fixed program fails under torch:\n{fixed}\n{run['message']}"
