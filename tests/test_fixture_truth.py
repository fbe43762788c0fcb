"""The fixture programs in fixtures/check/ against what PyTorch really does, and the static check against both.

* The shipped `fixtures/check/truth.json` is re-measured under the installed torch (`measure_truth.py --check`:
  every program run in a fresh subprocess, plainly and under `allow_mutation_on_saved_tensors()`).
* `python -m fixinplace check --format json fixtures/check`, run as a real subprocess, must report an error or a
  warning on every line marked `# hazard`, and no error in a program that measured `ok`. One test per fixture.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import forkserver
import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "check"
TRUTH_PATH = FIXTURES / "truth.json"
MEASURE = REPO / "fixtures" / "measure_truth.py"
PROGRAMS = sorted(p.name for p in FIXTURES.glob("*.py"))
HAZARD_OUTCOMES = ("raises-saved", "raises-leaf", "raises-view", "silent", "misleads")


def load_truth() -> dict:
    return json.loads(TRUTH_PATH.read_text(encoding="utf-8"))


def load_measure_module():
    """fixtures/measure_truth.py as a module (it imports torch only inside its functions)."""
    spec = importlib.util.spec_from_file_location("fixinplace_measure_truth", MEASURE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_fixtures_exist():
    assert len(PROGRAMS) >= 60, f"expected 60+ fixture programs in {FIXTURES}, found {len(PROGRAMS)}"
    assert TRUTH_PATH.exists(), f"{TRUTH_PATH} is missing: run python fixtures/measure_truth.py"


def test_shipped_truth_matches_files_and_rules():
    """Without torch: truth.json lists exactly the programs, with their current `# hazard` lines, consistently."""
    measure = load_measure_module()
    truth = load_truth()
    assert sorted(truth) == PROGRAMS, "truth.json and fixtures/check/*.py list different programs"
    assert TRUTH_PATH.read_text(encoding="utf-8") == measure.render(truth), "truth.json is not in canonical form"
    problems = []
    for name in PROGRAMS:
        source = (FIXTURES / name).read_text(encoding="utf-8")
        lines, comment_problems = measure.hazard_lines(source)
        problems += [f"{name}: {p}" for p in comment_problems + measure.format_problems(source)]
        entry = truth[name]
        if entry["hazard_lines"] != lines:
            problems.append(f"{name}: truth.json says hazard lines {entry['hazard_lines']}, the file marks {lines}")
        problems += measure.violations(name, entry, {"message": "", "reference_ok": True})
    assert not problems, "\n".join(problems)


def test_measured_truth_matches_shipped_truth():
    """Re-measure every program under the installed torch and compare with the shipped truth.json."""
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: the fixtures' truth cannot be measured")
    proc = subprocess.run(
        [sys.executable, forkserver.CLIENT, str(MEASURE), "--check"],  # a fork of the server that imported torch
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    assert proc.returncode == 0, (
        f"measure_truth.py --check exited {proc.returncode}\n"
        f"--- stdout ---\n{proc.stdout}\n--- stderr ---\n{proc.stderr}"
    )


@pytest.fixture(scope="module")
def static_report() -> tuple[dict | None, str]:
    """(report, problem): the JSON of one `fixinplace check` run over fixtures/check, or why there is none."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.pop("FORCE_COLOR", None)
    cmd = [sys.executable, "-m", "fixinplace", "check", "--format", "json", "fixtures/check"]
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, env=env, timeout=600)
    except subprocess.TimeoutExpired:
        return None, "`fixinplace check` timed out after 600 s"
    try:
        report = json.loads(proc.stdout)
        if not isinstance(report, dict) or not isinstance(report.get("diagnostics"), list):
            raise ValueError("no 'diagnostics' list")
    except ValueError as exc:
        tail = (proc.stderr.strip().splitlines() or [""])[-1]
        return None, (
            f"`{' '.join(cmd[1:])}` exited {proc.returncode} without a JSON report ({exc}); "
            f"stdout starts {proc.stdout[:200]!r}; last stderr line: {tail!r}"
        )
    return report, ""


def _is(path: str, name: str) -> bool:
    p = Path(path)
    if not p.is_absolute():
        p = REPO / p
    return p.resolve() == (FIXTURES / name).resolve()


@pytest.mark.parametrize("name", PROGRAMS)
def test_static_check_agrees_with_measured_truth(name: str, static_report: tuple[dict | None, str]):
    report, problem = static_report
    if report is None:
        pytest.fail(f"{name}: no static result: {problem}", pytrace=False)
    truth = load_truth()
    if name not in truth:
        pytest.fail(f"{name}: not in truth.json: run python fixtures/measure_truth.py", pytrace=False)
    entry = truth[name]
    source_lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    diags = [d for d in report["diagnostics"] if _is(d.get("path", ""), name)]
    shown = "; ".join(f"line {d['line']} {d['severity']} {d['code']}" for d in diags) or "none"
    problems = []
    for err in report.get("errors", []):
        if _is(err.get("path", ""), name):
            problems.append(f"the check could not analyse the file: {err.get('message')}")
    for line in entry["hazard_lines"]:
        if not any(d["line"] == line and d["severity"] in ("error", "warning") for d in diags):
            problems.append(
                f"line {line} `{source_lines[line - 1].strip()}` is a measured hazard ({entry['outcome']}) "
                f"but has no error or warning diagnostic"
            )
    if entry["outcome"] == "ok":
        for d in diags:
            if d["severity"] == "error":
                problems.append(
                    f"measured ok (runs, correct gradients) but got error {d['code']} at line {d['line']} "
                    f"`{source_lines[d['line'] - 1].strip()}`: {d['message']}"
                )
    if problems:
        pytest.fail(
            f"{name} (measured {entry['outcome']}, diagnostics: {shown}):\n  " + "\n  ".join(problems),
            pytrace=False,
        )
