"""docs/rules.md and README.md stay true to the code; README's commands are the ones CI runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from fixinplace.docs import render, render_readme, rule_anchor
from fixinplace.rules import RULES

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
CI_RUN = REPO / ".ci" / "run"


def docs_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run(
        [sys.executable, "-m", "fixinplace.docs", *args], cwd=REPO, capture_output=True, text=True, env=env, timeout=120
    )


def test_committed_docs_are_fresh():
    proc = docs_cli("--check")
    assert proc.returncode == 0, proc.stderr


def test_check_detects_stale_docs(tmp_path):
    stale = tmp_path / "rules.md"
    stale.write_text(render().replace("FIP101", "FIP1O1"))
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text())
    proc = docs_cli("--check", "--output", str(stale), "--readme", str(readme))
    assert proc.returncode == 1 and "stale" in proc.stderr and str(stale) in proc.stderr
    assert docs_cli("--output", str(stale), "--readme", str(readme)).returncode == 0
    assert docs_cli("--check", "--output", str(stale), "--readme", str(readme)).returncode == 0


def test_rules_md_documents_every_rule():
    text = render()
    for rule in RULES:
        assert f'<a id="{rule_anchor(rule)}"></a>' in text
        assert f"## {rule.code}: {rule.name}" in text
        assert f"**Default severity:** {rule.severity.value}" in text
        assert rule.explanation in text
        for example in rule.flagged + rule.clean:
            assert example.rstrip("\n") in text


def test_readme_rule_table_lists_every_rule():
    readme = README.read_text()
    assert render_readme(readme) == readme
    for rule in RULES:
        assert f"[{rule.code}](docs/rules.md#{rule_anchor(rule)}) | `{rule.name}` | {rule.severity.value} |" in readme


def ci_commands() -> tuple[str, str]:
    script = CI_RUN.read_text()
    install = re.search(r'^INSTALL="(.*)"$', script, re.M)
    test = re.search(r'^TEST="(.*)"$', script, re.M)
    assert install and test, "the install and test commands must be set in .ci/run"
    return install.group(1), test.group(1)


def readme_first_commands() -> list[str]:
    """The shell commands of README's code blocks before its first `##` section."""
    intro = README.read_text().split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", intro, re.S)]


def test_readme_starts_with_exactly_the_two_commands_ci_runs():
    install, test = ci_commands()
    assert readme_first_commands() == [
        f"python3 -m venv .venv && . .venv/bin/activate && {install} && fixinplace check fixtures/; "
        "fixinplace fix fixtures/check",
        f"python3 -m venv .venv && . .venv/bin/activate && {install} && {test}",
    ]
    assert install.startswith("pip install torch==2.13.0 && ")  # torch first: a bare torch pulls GBs of CUDA


def test_ci_script_is_strict_and_executable():
    script = CI_RUN.read_text()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert 'python3 -m venv "$work/venv"' in script and 'eval "$INSTALL"' in script and 'eval "$TEST"' in script
    assert os.access(CI_RUN, os.X_OK)


def test_readme_documents_the_contract():
    readme = README.read_text()
    for fragment in [
        '"diagnostics"',
        '"errors"',
        "end_column",
        "# fixinplace: ignore[FIP101, FIP102]",
        "[tool.fixinplace]",
        "--format sarif",
        "--format github",
        "| 2 |",
    ]:
        assert fragment in readme
