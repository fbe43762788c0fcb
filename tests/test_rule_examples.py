"""Every rule's documented examples, run through the real check (and the real CLI).

Each `flagged` example must produce a diagnostic with the marked code on every line marked `# expect: CODE`
(at the default severity threshold for error/warning rules, at `info` for info rules), and each `clean` example
must produce no error or warning. These tests exercise the analysis itself: they fail until it reports them.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from fixinplace.diagnostics import Severity
from fixinplace.engine import check_source
from fixinplace.rules import RULES, Rule
from fixinplace.settings import Settings

REPO = Path(__file__).resolve().parent.parent
EXPECT = re.compile(r"#\s*expect:\s*([A-Z0-9, ]+)")


def expected(example: str) -> set[tuple[int, str]]:
    """(line, code) for every `# expect: CODE[, CODE]` marker."""
    out = set()
    for number, line in enumerate(example.splitlines(), start=1):
        m = EXPECT.search(line)
        if m:
            out.update((number, code.strip()) for code in m.group(1).split(",") if code.strip())
    return out


def settings_for(rule: Rule) -> Settings:
    return Settings(severity=Severity.INFO) if rule.severity is Severity.INFO else Settings()


FLAGGED = [pytest.param(rule, ex, id=f"{rule.code}-flagged-{i}") for rule in RULES for i, ex in enumerate(rule.flagged)]
CLEAN = [pytest.param(rule, ex, id=f"{rule.code}-clean-{i}") for rule in RULES for i, ex in enumerate(rule.clean)]


@pytest.mark.parametrize("rule, example", FLAGGED + CLEAN)
def test_examples_are_valid_python(rule, example):
    ast.parse(example)


@pytest.mark.parametrize("rule, example", FLAGGED)
def test_flagged_examples_mark_their_rule(rule, example):
    assert any(code == rule.code for _, code in expected(example)), "a flagged example must mark its own code"


@pytest.mark.parametrize("rule, example", FLAGGED)
def test_flagged_example_is_reported(rule, example):
    diagnostics = check_source(example, f"{rule.code.lower()}_example.py", settings_for(rule))
    reported = {(d.line, d.code) for d in diagnostics}
    missing = expected(example) - reported
    assert not missing, f"not reported: {sorted(missing)}; reported: {sorted(reported)}"


@pytest.mark.parametrize("rule, example", CLEAN)
def test_clean_example_has_no_error_or_warning(rule, example):
    diagnostics = check_source(example, f"{rule.code.lower()}_clean.py", Settings())
    assert [(d.line, d.code, d.severity.value, d.message) for d in diagnostics] == []


@pytest.mark.parametrize("rule, example", FLAGGED)
def test_flagged_example_through_the_cli(rule, example, tmp_path):
    """End to end: `fixinplace check --format json` reports the marked lines; exit 1 for error/warning rules."""
    (tmp_path / "example.py").write_text(example)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    args = [sys.executable, "-m", "fixinplace", "check", "--format", "json", "example.py"]
    if rule.severity is Severity.INFO:
        args[4:4] = ["--severity", "info"]
    proc = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=300)
    data = json.loads(proc.stdout)
    assert data["errors"] == []
    reported = {(d["line"], d["code"]) for d in data["diagnostics"]}
    assert expected(example) <= reported, data
    assert all(d["path"] == "example.py" for d in data["diagnostics"])
    assert proc.returncode == (0 if rule.severity is Severity.INFO else 1), proc.stderr
