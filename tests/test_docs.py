"""The docs site builds strictly and its generated pages are current; README keeps the commands CI runs."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import child_env

from codemods import CODEMODS
from fixinplace.docs import (
    SAVED_MODULES,
    SAVED_OPS,
    example_output,
    fix_anchor,
    render_nav,
    render_outputs,
    render_pages,
    render_readme,
    rule_anchor,
    rule_page_path,
    stale_paths,
)
from fixinplace.rules import RULES

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"
DOCS = REPO / "docs"
CI_RUN = REPO / ".ci" / "run"


def docs_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "fixinplace.docs", *args], cwd=REPO, capture_output=True, text=True, env=child_env(NO_MKDOCS_2_WARNING="1"),
        timeout=600,  # --check runs the example commands, verify and trace included
    )


def mkdocs_build(config: Path, site: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=config.parent, capture_output=True, text=True, env=child_env(NO_MKDOCS_2_WARNING="1"), timeout=300,
    )


# Generated pages


def test_committed_docs_are_fresh():
    """Every generated page and example output is what would be rendered now (in this process, so the example
    commands run once for this test and the example-output tests; `--check` itself is tested below)."""
    stale = stale_paths()
    assert not stale, f"stale: {', '.join(map(str, stale))}: run `python -m fixinplace.docs` and commit"


def test_check_detects_stale_missing_and_left_over_pages(tmp_path):
    docs = tmp_path / "docs"
    readme = tmp_path / "README.md"  # a rule table and no example outputs: nothing to run
    readme.write_text("# x\n\n<!-- rules:start -->\n<!-- rules:end -->\n")
    check = ("--check", "--docs-dir", str(docs), "--readme", str(readme))

    proc = docs_cli(*check)  # nothing written yet: every page is missing
    assert proc.returncode == 1 and str(docs / "rules.md") in proc.stderr
    assert docs_cli("--docs-dir", str(docs), "--readme", str(readme)).returncode == 0
    assert docs_cli(*check).returncode == 0
    assert "[FIP101](docs/rules.md#fip101)" in readme.read_text()

    page = docs / rule_page_path(RULES[0])
    page.write_text(page.read_text().replace(RULES[0].code, RULES[0].code + "X"))
    orphan = docs / "rules" / "fip999.md"
    orphan.write_text("# FIP999: a rule that no longer exists\n")
    proc = docs_cli(*check)
    assert proc.returncode == 1 and "stale" in proc.stderr
    assert str(page) in proc.stderr and str(orphan) in proc.stderr

    assert docs_cli("--docs-dir", str(docs), "--readme", str(readme)).returncode == 0
    assert not orphan.exists()
    assert docs_cli(*check).returncode == 0


def test_every_rule_has_a_page_with_its_text_and_examples():
    pages = render_pages()
    index = pages["rules.md"]
    for rule in RULES:
        assert f'<a id="{rule_anchor(rule)}"></a>' in index  # SARIF's helpUri and README link to these anchors
        assert f"]({rule_page_path(rule)})" in index
        page = pages[rule_page_path(rule)]
        assert page.startswith(f"# {rule.code}: {rule.name}\n")
        assert f"**Default severity:** {rule.severity.value}" in page
        assert rule.explanation in page
        for example in rule.flagged + rule.clean:
            assert "```python\n" + example.rstrip("\n") + "\n```" in page


def test_fixes_page_shows_every_codemod_before_and_after():
    page = render_pages()["fixes.md"]
    for name, codemod in CODEMODS.items():
        assert f'<a id="{fix_anchor(name)}"></a>' in page and f"## `{name}`" in page
        assert codemod.EXAMPLES, f"{name} has no examples to show"
        for before, after in codemod.EXAMPLES:
            assert "```python\n" + before.rstrip("\n") + "\n```" in page
            assert "```python\n" + after.rstrip("\n") + "\n```" in page


def test_saved_tensors_page_shows_what_the_shipped_table_records():
    page = render_pages()["saved-tensors.md"]
    for name in SAVED_OPS:
        assert f"| `{name}(" in page, name
    for name in SAVED_MODULES:
        assert f"| `nn.{name}` (" in page, name
    # Facts measured under torch (the table generator's own tests check them against torch itself).
    assert "| `torch.exp(input: tensor)` | its output |" in page
    assert "| `torch.mul(input: tensor, other: value)` | nothing |" in page
    mul = "| `torch.mul(input: tensor, other: tensor)` | `input`, `other` | only `input`: `other`; only `other`:"
    assert mul in page
    assert "| `torch.nn.functional.cross_entropy(input: tensor, target: tensor)` | `target` |" in page


def test_pages_render_without_torch(tmp_path):
    """The rule, fix and table pages and README's rule table come from the code alone: no torch, no command run;
    the example outputs are left as they are unless `--outputs` asks for them."""
    docs, readme = tmp_path / "docs", tmp_path / "README.md"
    readme.write_text("# x\n\n<!-- rules:start -->\n<!-- rules:end -->\n\n<!-- output:check -->\n```\nkept\n```\n"
                      "<!-- output:end -->\n")
    hide_torch = "import sys, runpy; sys.modules['torch'] = None; sys.argv[0] = 'docs'; " \
                 "runpy.run_module('fixinplace.docs', run_name='__main__')"
    proc = subprocess.run([sys.executable, "-c", hide_torch, "--docs-dir", str(docs), "--readme", str(readme)],
                          cwd=REPO, capture_output=True, text=True, env=child_env(), timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (docs / "rules.md").is_file() and (docs / "saved-tensors.md").is_file()
    assert "[FIP101](docs/rules.md#fip101)" in readme.read_text() and "kept" in readme.read_text()


def test_example_outputs_are_what_the_commands_print():
    check = example_output("check")
    assert "train.py:8:5: FIP101 [error]" in check and "Found 1 error" in check
    assert "+    u = x.exp().clone()" in example_output("fix")
    assert "main [cpu] verified" in example_output("verify")
    assert "train.py:8: `__setitem__` wrote a tensor saved for backward" in example_output("trace")
    readme = README.read_text()
    stale = re.sub(r"(<!-- output:check -->\n).*?(<!-- output:end -->)", r"\1```\nold output\n```\n\2", readme,
                   count=1, flags=re.S)
    assert stale != readme and "old output" not in render_outputs(stale)
    assert render_readme(stale) == readme
    assert render_readme(stale, outputs=False) == stale


# The site


def test_site_builds_strictly(tmp_path):
    proc = mkdocs_build(REPO / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for relative in render_pages():
        built = tmp_path / "site" / relative.removesuffix(".md") / "index.html"
        assert built.is_file(), f"{relative} was not built (is it in mkdocs.yml's nav?)"
    assert (tmp_path / "site" / "search" / "search_index.json").is_file()


@pytest.mark.parametrize("link, named", [("missing.md", "missing.md"), ("rules.md#fip000", "fip000")])
def test_strict_build_fails_on_a_broken_link_or_anchor(tmp_path, link: str, named: str):
    shutil.copy(REPO / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(DOCS, tmp_path / "docs")
    page = tmp_path / "docs" / "index.md"
    page.write_text(page.read_text() + f"\nSee [this]({link}).\n")
    proc = mkdocs_build(tmp_path / "mkdocs.yml", tmp_path / "site")
    assert proc.returncode != 0
    assert named in proc.stdout + proc.stderr


def test_docs_document_the_contract():
    """The output formats, suppression comments, configuration and exit codes are documented on the site."""
    text = {name: (DOCS / name).read_text() for name in ("formats.md", "commands.md", "check.md")}
    for name, fragment in [
        ("formats.md", '"diagnostics"'),
        ("formats.md", '"errors"'),
        ("formats.md", "end_column"),
        ("formats.md", "--format sarif"),
        ("formats.md", "--format github"),
        ("commands.md", "# fixinplace: ignore[FIP101, FIP102]"),
        ("commands.md", "[tool.fixinplace]"),
        ("commands.md", "(configuration.md)"),
        ("check.md", "| 2 |"),
    ]:
        assert fragment in text[name], f"{fragment!r} not in docs/{name}"


# README


def test_site_navigation_lists_every_rule_page():
    """The rule pages of mkdocs.yml's navigation are generated: each rule once, in order, and a rule missing from
    the committed file is put back by `python -m fixinplace.docs`."""
    config = (REPO / "mkdocs.yml").read_text()
    assert render_nav(config) == config
    listed = re.findall(r"^\s+- (FIP\d+) [\w-]+: (rules/fip\d+\.md)$", config, re.M)
    assert listed == [(rule.code, rule_page_path(rule)) for rule in RULES]
    without_last = re.sub(rf"^\s+- {RULES[-1].code} .*\n", "", config, flags=re.M)
    assert without_last != config and render_nav(without_last) == config


def test_readme_rule_table_lists_every_rule():
    readme = README.read_text()
    assert render_readme(readme) == readme
    for rule in RULES:
        assert f"[{rule.code}](docs/rules.md#{rule_anchor(rule)}) | `{rule.name}` | {rule.severity.value} |" in readme


def test_readme_is_an_introduction_whose_links_resolve():
    readme = README.read_text()
    # The generated rule table grows by a row per rule: what is written by hand is what must stay short.
    written = readme[:readme.index("<!-- rules:start")] + readme[readme.index("<!-- rules:end -->"):]
    assert len(written.splitlines()) <= 150, "README is an introduction: move details to docs/"
    links = re.findall(r"\]\(((?!https?:)[^)#]+)(?:#[^)]*)?\)", readme)
    assert links
    for link in links:
        assert (REPO / link).exists(), f"README links to {link}, which does not exist"


def ci_commands() -> dict[str, str]:
    """The commands .ci/run sets: CHECK_INSTALL, CHECK, INSTALL and TEST."""
    script = CI_RUN.read_text()
    found = {}
    for name in ("CHECK_INSTALL", "CHECK", "INSTALL", "TEST"):
        match = re.search(rf'^{name}="(.*)"$', script, re.M)
        assert match, f"{name}: the README's commands must be set in .ci/run"
        found[name] = match.group(1)
    return found


def readme_first_commands() -> list[str]:
    """The shell commands of README's code blocks before its first `##` section."""
    intro = README.read_text().split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", intro, re.S)]


def test_readme_starts_with_exactly_the_two_commands_ci_runs():
    ci = ci_commands()
    venv = "python3 -m venv .venv && . .venv/bin/activate"
    assert readme_first_commands() == [
        f"{venv} && {ci['CHECK_INSTALL']} && {ci['CHECK']}",
        f"{venv} && {ci['INSTALL']} && {ci['TEST']}",
    ]
    assert "torch" not in ci["CHECK_INSTALL"]  # check and fix need no torch: the first command installs none
    assert ci["CHECK"] == "fixinplace check fixtures/ --statistics; fixinplace fix fixtures/check --summary"
    assert ci["INSTALL"].startswith("pip install -q torch==2.13.0 && ")  # torch first: a bare torch pulls GBs of CUDA


def test_ci_script_is_strict_and_executable():
    script = CI_RUN.read_text()
    assert script.startswith("#!/usr/bin/env bash\n")
    assert "set -euo pipefail" in script
    assert 'python3 -m venv "$work/venv"' in script and 'eval "$INSTALL"' in script and 'eval "$TEST"' in script
    assert 'python3 -m venv "$work/check-venv"' in script and 'eval "$CHECK_INSTALL"' in script
    assert os.access(CI_RUN, os.X_OK)
