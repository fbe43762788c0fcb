"""Jupyter notebooks in `check`, `fix`, `fix --apply`, `verify` and `--add-noqa`: real notebooks written with
nbformat, the real command line in subprocesses (`fixinplace.notebook` is also exercised directly for the line
map, the masking of IPython syntax and the byte-exact round trip of the JSON)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import nbformat
import pytest
from clirun import REPO, cli
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

from fixinplace.notebook import CellSplitError, join_cells, parse_notebook

SARIF_SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

SETUP = "%load_ext autoreload\nimport torch\ntorch.manual_seed(0)\nx = torch.randn(8, 4)\nw = torch.randn(4, 3, requires_grad=True)"
SAVE = "gate = torch.sigmoid(x @ w)\n!echo saved"
WRITE = "%time y = 1\ngate.add_(0.1)\nloss = gate.pow(2).mean()\nloss.backward()"


def cli_stdin(*args: str, cwd: Path, input_text: str) -> subprocess.CompletedProcess:
    """`cli` with `input_text` on standard input."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("FIXINPLACE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "fixinplace", *args], cwd=cwd, input=input_text, text=True,
                          capture_output=True, env=env, timeout=300, encoding="utf-8")


def write_notebook(path: Path, cells: list, **metadata) -> Path:
    notebook = new_notebook(cells=cells)
    notebook.metadata.update(metadata)
    nbformat.write(notebook, str(path))
    return path


def training_notebook(path: Path) -> Path:
    """Markdown, then setup (with magics), the tensor saved in one cell and written in a later one (cell 5)."""
    save = new_code_cell(SAVE, execution_count=2)
    save.outputs = [new_output("stream", name="stdout", text="saved\n")]
    save.metadata["tags"] = ["keep"]
    return write_notebook(path, [
        new_markdown_cell("# Training\nThe gate is written in place."),
        new_code_cell(SETUP, execution_count=1),
        save,
        new_markdown_cell("Now write it."),
        new_code_cell(WRITE, execution_count=3),
    ], kernelspec={"name": "python3", "display_name": "Python 3", "language": "python"})


def clean_notebook(path: Path) -> Path:
    return write_notebook(path, [new_code_cell("import torch\nx = torch.ones(3)\nx.add_(1)  # no autograd here")])


# ---------------------------------------------------------------------------------------------------------------
# Joining cells


def test_magics_are_masked_with_the_same_lines_and_valid_indentation():
    cells = ["%timeit f()\nx = !ls\nobj?\n??obj\n%load_ext foo\nimport torch",
             "%%time\nx = 1\n  y = (",
             "for i in range(3):\n    !echo {i}\n    %time g(i)\ns = '''\nwhat?\n%not a magic\n'''\nz = 1  # why?"]
    joined = join_cells(cells)
    lines = joined.text.splitlines()
    assert lines[:6] == ["pass"] * 5 + ["import torch"]
    assert lines[6:9] == ["pass"] * 3  # a cell magic masks its whole cell
    assert lines[9:12] == ["for i in range(3):", "    pass", "    pass"]
    assert lines[12:] == ["s = '''", "what?", "%not a magic", "'''", "z = 1  # why?"]  # inside a string: kept
    compile(joined.text, "<joined>", "exec")
    assert joined.masked == ((1, 2, 3, 4, 5), (1, 2, 3), (2, 3))
    assert joined.split(joined.text) == cells


def test_line_map_both_ways():
    joined = join_cells(["a = 1\nb = 2", "", "c = 3\n"])
    assert joined.text == "a = 1\nb = 2\n\nc = 3\n"  # an empty cell keeps one line: every line has one cell
    assert [joined.cell_position(n) for n in range(1, 5)] == [(0, 1), (0, 2), (1, 1), (2, 1)]
    assert [joined.joined_line(c, n) for c, n in [(0, 1), (0, 2), (1, 1), (2, 1)]] == [1, 2, 3, 4]


def test_split_places_inserted_lines_and_restores_masked_ones():
    cells = ["import torch\n%matplotlib inline", "def f(x):\n    y = x.exp()\n    return y", "z = f(1)"]
    joined = join_cells(cells)
    new = joined.text.replace("    y = x.exp()\n", "    x = x.clone()\n    y = x.exp()\n")
    new = new.replace("z = f(1)", "w = 2\nz = f(1)")
    assert joined.split(new) == ["import torch\n%matplotlib inline",
                                 "def f(x):\n    x = x.clone()\n    y = x.exp()\n    return y", "w = 2\nz = f(1)"]


def test_split_refuses_a_rewrite_of_a_magic_or_across_cells():
    joined = join_cells(["%time x = 1\nimport torch", "a = 1"])
    with pytest.raises(CellSplitError, match="line 1 of cell 1, which is IPython syntax"):
        joined.split(joined.text.replace("pass", "x = 1"))
    with pytest.raises(CellSplitError, match="spans cells 1 and 2"):
        joined.split(joined.text.replace("import torch\na = 1", "b = 2"))


def test_a_rewrite_is_admitted_only_when_it_splits_into_cells_that_parse():
    joined = join_cells(["%time x = 1\nimport torch", "def f(x):\n    return x"])
    assert joined.admits(joined.text.replace("    return x", "    x = x + 1\n    return x"))
    assert not joined.admits(joined.text.replace("pass", "x = 1"))  # a magic
    assert not joined.admits(joined.text.replace("import torch\ndef f(x):", "import torch as t\ndef g(x):"))
    assert not joined.admits(joined.text.replace("    return x", "return x"))  # cell 2 no longer parses


def test_fix_makes_only_the_rewrites_the_notebook_admits():
    from fixinplace.fix import fix_text
    from fixinplace.settings import Settings

    source = "import torch\n\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"
    refused = fix_text(source, "nb.py", Settings(), admissible=lambda text: False)
    assert refused.source == source and not refused.applied and [d.code for d in refused.remaining] == ["FIP101"]
    taken = fix_text(source, "nb.py", Settings(), admissible=lambda text: "y.add(1)" not in text)
    assert "    y = y.clone()\n    y.add_(1)\n" in taken.source and not taken.remaining  # the next candidate


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing the JSON


@pytest.mark.parametrize("indent", [1, 2, 4, None])
@pytest.mark.parametrize("ensure_ascii", [False, True])
def test_round_trip_is_byte_identical(tmp_path, indent, ensure_ascii):
    notebook = new_notebook(cells=[new_markdown_cell("# Ünïcode ✓"), new_code_cell("x = 'é'\n", execution_count=1)])
    notebook.cells[1].outputs = [new_output("execute_result", data={"text/plain": "'é'"}, execution_count=1)]
    notebook.metadata["widgets"] = {"z": 1, "a": [1.5, None, True]}  # key order is kept, not sorted
    text = json.dumps(notebook, indent=indent, ensure_ascii=ensure_ascii) + ("\n" if indent else "")
    parsed = parse_notebook(text)
    assert parsed.with_sources(parsed.code_sources()) == text
    assert parsed.faithful
    changed = parsed.with_sources(["x = 'ü'\n"])
    assert json.loads(changed)["cells"][1]["source"] == "x = 'ü'\n"
    assert changed.replace("ü", "é").replace("\\u00fc", "\\u00e9") == text  # only that source changed


def test_list_sources_stay_lists(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    parsed = parse_notebook(path.read_text(encoding="utf-8"))
    sources = parsed.code_sources()
    sources[2] = sources[2].replace("gate.add_(0.1)", "gate = gate.add(0.1)")
    cell = json.loads(parsed.with_sources(sources))["cells"][4]
    assert cell["source"] == ["%time y = 1\n", "gate = gate.add(0.1)\n", "loss = gate.pow(2).mean()\n",
                              "loss.backward()"]


# ---------------------------------------------------------------------------------------------------------------
# check


def test_check_finds_a_hazard_spanning_two_cells_and_names_the_cells(tmp_path):
    training_notebook(tmp_path / "train.ipynb")
    result = cli("check", "train.ipynb", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    first = result.stdout.splitlines()[0]
    # Cells count every cell (markdown ones too), from 1, as Ruff counts them; the line is the line in the cell.
    assert first.startswith("train.ipynb:cell 5:2:1: FIP101 [error] [*] in-place write to `gate`")
    assert "saved by `sigmoid` at line 1 of cell 3" in first
    assert "2 | gate.add_(0.1)" in result.stdout  # the cell's own line, not the joined text's
    assert "= note: train.ipynb:cell 3:1:8: `gate` saved for backward by `sigmoid` here" in result.stdout


def test_json_sarif_and_github_name_the_cell(tmp_path):
    training_notebook(tmp_path / "train.ipynb")
    result = cli("check", "train.ipynb", "--format", "json", "--no-cache", cwd=tmp_path)
    (d,) = json.loads(result.stdout)["diagnostics"]
    assert (d["path"], d["cell"], d["line"], d["column"], d["end_line"], d["end_column"]) == \
        ("train.ipynb", 5, 2, 1, 2, 15)
    assert d["fix"] == {"applicability": "safe", "description": "Use the out-of-place `add`: `gate = gate.add(0.1)`"}

    sarif = json.loads(cli("check", "train.ipynb", "--format", "sarif", "--no-cache", cwd=tmp_path).stdout)
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validators.validator_for(schema)(schema).validate(sarif)
    (r,) = sarif["runs"][0]["results"]
    location = r["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "train.ipynb"
    assert location["region"] == {"startLine": 2, "startColumn": 1, "endLine": 2, "endColumn": 15}
    assert r["properties"]["cell"] == 5
    assert r["relatedLocations"][0]["properties"] == {"cell": 3}
    assert r["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 1

    github = cli("check", "train.ipynb", "--format", "github", "--no-cache", cwd=tmp_path).stdout
    assert github.startswith("::error file=train.ipynb,line=2,col=1,endLine=2,endColumn=15,title=FIP101 (cell 5)::")


def test_a_cell_with_a_syntax_error_is_one_error_and_the_others_go_on(tmp_path):
    write_notebook(tmp_path / "broken.ipynb", [new_markdown_cell("x"), new_code_cell("import torch"),
                                               new_code_cell("def f(:\n    pass")])
    training_notebook(tmp_path / "train.ipynb")
    result = cli("check", ".", "--no-cache", "-q", cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stdout.splitlines()
    assert any(line.startswith("train.ipynb:cell 5:2:1: FIP101") for line in lines)
    errors = [line for line in lines if "error:" in line and "FIP" not in line]
    assert errors == ["broken.ipynb: error: syntax error in cell 3 at line 1:7: invalid syntax"]


def test_a_folder_of_notebooks_checkpoints_and_exclusions(tmp_path):
    (tmp_path / "nbs" / ".ipynb_checkpoints").mkdir(parents=True)
    training_notebook(tmp_path / "nbs" / "a.ipynb")
    clean_notebook(tmp_path / "nbs" / "b.ipynb")
    training_notebook(tmp_path / "nbs" / ".ipynb_checkpoints" / "a-checkpoint.ipynb")
    result = cli("check", "nbs", "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1
    assert [(d["path"], d["cell"]) for d in json.loads(result.stdout)["diagnostics"]] == [("nbs/a.ipynb", 5)]
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace]\nextend-exclude = ["*.ipynb"]\n', encoding="utf-8")
    excluded = cli("check", "nbs", "--no-cache", cwd=tmp_path)
    assert excluded.returncode == 2 and "nbs: error: no Python files found" in excluded.stdout


def test_invalid_notebooks_are_one_line_errors(tmp_path):
    (tmp_path / "notjson.ipynb").write_text("{not json", encoding="utf-8")
    (tmp_path / "v3.ipynb").write_text(json.dumps({"nbformat": 3, "nbformat_minor": 0, "cells": [],
                                                   "metadata": {}}), encoding="utf-8")
    training_notebook(tmp_path / "train.ipynb")
    result = cli("check", ".", "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.returncode == 2
    data = json.loads(result.stdout)
    assert data["errors"] == [
        {"path": "notjson.ipynb",
         "message": "invalid notebook: not JSON (Expecting property name enclosed in double quotes at line 1 "
                    "column 2)"},
        {"path": "v3.ipynb", "message": "unsupported notebook format: nbformat 3 (only nbformat 4 is read)"},
    ]
    assert [d["path"] for d in data["diagnostics"]] == ["train.ipynb"]
    fixed = cli("fix", "notjson.ipynb", "train.ipynb", cwd=tmp_path)
    assert fixed.returncode == 2
    assert "notjson.ipynb: error: invalid notebook: not JSON" in fixed.stderr
    assert "+++ b/train.ipynb:cell 5" in fixed.stdout


def test_cached_results_are_the_same(tmp_path):
    training_notebook(tmp_path / "train.ipynb")
    first = cli("check", "train.ipynb", "--format", "json", cwd=tmp_path)
    assert list((tmp_path / ".fixinplace_cache").rglob("*.json"))
    second = cli("check", "train.ipynb", "--format", "json", cwd=tmp_path)
    assert first.stdout == second.stdout and json.loads(second.stdout)["diagnostics"][0]["cell"] == 5


def test_check_reads_a_notebook_from_stdin(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    result = cli_stdin("check", "-", "--stdin-filename", "train.ipynb", "-q", cwd=tmp_path,
                       input_text=path.read_text(encoding="utf-8"))
    assert result.stdout.startswith("train.ipynb:cell 5:2:1: FIP101")


# ---------------------------------------------------------------------------------------------------------------
# fix


def test_fix_prints_a_diff_per_cell_and_changes_nothing(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    before = path.read_bytes()
    result = cli("fix", "train.ipynb", cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == (
        "--- a/train.ipynb:cell 5\n"
        "+++ b/train.ipynb:cell 5\n"
        "@@ -1,4 +1,4 @@\n"
        " %time y = 1\n"
        "-gate.add_(0.1)\n"
        "+gate = gate.add(0.1)\n"
        " loss = gate.pow(2).mean()\n"
        " loss.backward()\n"
        "\\ No newline at end of file\n"
    )
    assert path.read_bytes() == before


def test_fix_apply_changes_only_the_fixed_cell_and_twice_changes_nothing(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    before = nbformat.read(str(path), as_version=4)
    first = cli("fix", "train.ipynb", "--apply", cwd=tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    assert "Fixed 1 hazard in 1 file." in first.stdout
    after = nbformat.read(str(path), as_version=4)
    nbformat.validate(after)
    assert after.cells[4].source == WRITE.replace("gate.add_(0.1)", "gate = gate.add(0.1)")
    after.cells[4].source = before.cells[4].source
    assert after == before  # outputs, metadata, markdown cells, the other sources: untouched
    assert not list(tmp_path.glob(".*.tmp"))
    once = path.read_bytes()
    second = cli("fix", "train.ipynb", "--apply", cwd=tmp_path)
    assert second.returncode == 0 and "Fixed 0 hazards in 0 files." in second.stdout
    assert path.read_bytes() == once
    assert cli("check", "train.ipynb", "--no-cache", cwd=tmp_path).returncode == 0


def test_fix_apply_leaves_a_clean_notebook_byte_identical(tmp_path):
    notebook = new_notebook(cells=[new_raw_cell("raw ✓"), new_code_cell("import torch\nx = torch.ones(2)")])
    path = tmp_path / "clean.ipynb"
    path.write_text(json.dumps(notebook, indent=2, ensure_ascii=True), encoding="utf-8")  # no final newline
    before = path.read_bytes()
    result = cli("fix", "clean.ipynb", "--apply", cwd=tmp_path)
    assert result.returncode == 0 and path.read_bytes() == before


def test_fix_stdin_prints_the_fixed_notebook(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    result = cli_stdin("fix", "-", "--stdin-filename", "train.ipynb", cwd=tmp_path,
                       input_text=path.read_text(encoding="utf-8"))
    assert result.returncode == 0
    assert nbformat.reads(result.stdout, as_version=4).cells[4].source.splitlines()[1] == "gate = gate.add(0.1)"


def test_add_noqa_comments_the_cell(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    result = cli("check", "train.ipynb", "--add-noqa", "--no-cache", cwd=tmp_path)
    assert result.returncode == 0 and "Added 1 suppression comment to 1 file." in result.stdout
    assert nbformat.read(str(path), as_version=4).cells[4].source.splitlines()[1] == \
        "gate.add_(0.1)  # fixinplace: ignore[FIP101]"
    assert cli("check", "train.ipynb", "--no-cache", cwd=tmp_path).returncode == 0


# ---------------------------------------------------------------------------------------------------------------
# verify


def test_verify_runs_the_joined_cells_and_names_the_cell(tmp_path):
    pytest.importorskip("torch")
    write_notebook(tmp_path / "fn.ipynb", [
        new_markdown_cell("# Model"),
        new_code_cell("%matplotlib inline\nimport torch"),
        new_code_cell("def main():\n    torch.manual_seed(0)\n    x = torch.randn(8, 4)\n"
                      "    w = torch.randn(4, 3, requires_grad=True)\n    gate = torch.sigmoid(x @ w)\n"
                      "    gate.add_(0.1)\n    loss = gate.pow(2).mean()\n    loss.backward()\n"
                      "    return {'loss': loss, 'w.grad': w.grad}"),
    ])
    result = cli("verify", "fn.ipynb", "--device", "cpu", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    (row,) = json.loads(result.stdout)["results"]
    assert (row["status"], row["function"], row["cell"], row["line"]) == ("verified", "main", 3, 1)
    assert row["fixes"][0] | {"strategy": ""} == {"cell": 3, "line": 6, "code": "FIP101", "strategy": "",
                                                   "applicability": "safe"}
    text = cli("verify", "fn.ipynb", "--device", "cpu", cwd=tmp_path)
    assert text.stdout.startswith("fn.ipynb:cell 3:1 main [cpu] verified")


def test_verify_runs_a_notebook_with_its_hazard_at_top_level_as_a_script(tmp_path):
    """The cells of a notebook are module-level code: verify runs them in order (magics masked), original and
    patched, and compares the state they leave and what they print."""
    pytest.importorskip("torch")
    training_notebook(tmp_path / "train.ipynb")
    result = cli("verify", "train.ipynb", "--device", "cpu", "--format", "json", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    (row,) = json.loads(result.stdout)["results"]
    assert (row["status"], row["function"], row["reference"]) == ("verified", "<module>", "saved_tensor_copies")
    assert row["fixes"][0]["cell"] == 5 and "run as a script" in row["reason"]


def test_fix_verify_refuses_notebooks(tmp_path):
    path = training_notebook(tmp_path / "train.ipynb")
    before = path.read_bytes()
    result = cli("fix", "train.ipynb", "--verify", "--apply", cwd=tmp_path)
    assert result.returncode == 2
    assert "train.ipynb: error: fix --verify does not support notebooks yet" in result.stderr
    assert path.read_bytes() == before


def test_a_fix_inside_a_block_with_magics_keeps_them(tmp_path):
    loop = ("for step in range(2):\n    x = torch.randn(8, 4)\n    !echo {step}\n    gate = torch.sigmoid(x @ w)\n"
            "    %time z = 1\n    gate.add_(0.1)\n    loss = gate.pow(2).mean()\n    loss.backward()")
    path = write_notebook(tmp_path / "loop.ipynb", [
        new_code_cell("import torch\nw = torch.randn(4, 3, requires_grad=True)"), new_code_cell(loop)])
    checked = cli("check", "loop.ipynb", "-q", "--no-cache", cwd=tmp_path)
    assert checked.stdout.startswith("loop.ipynb:cell 2:6:5: FIP101")
    assert cli("fix", "loop.ipynb", "--apply", cwd=tmp_path).returncode == 0
    assert nbformat.read(str(path), as_version=4).cells[1].source == loop.replace("gate.add_(0.1)",
                                                                                 "gate = gate.add(0.1)")


# ---------------------------------------------------------------------------------------------------------------
# A cell that does not parse alone, though the joined cells do: check, fix and verify agree


#: Code cells (after an `import torch` cell) where one cell continues a block or a string of the cell above: the
#: joined text parses, each cell alone does not (Jupyter runs each cell alone: running it is a syntax error).
CONTINUED_CELLS = {
    "def_body_continued": (["def f(x):\n    y = x.exp()", "    y.add_(1)\n    return y",
                            "f(torch.randn(3, requires_grad=True)).sum().backward()"],
                           "syntax error in cell 3 at line 1:4: unexpected indent"),
    "def_header_alone": (["def f(x):", "    y = x.exp()\n    y.add_(1)\n    return y",
                          "f(torch.randn(3, requires_grad=True)).sum().backward()"],
                         "syntax error in cell 2 at line 1:10: expected an indented block after function "
                         "definition on line 1"),
    "else_in_the_next_cell": (["x = torch.randn(3, requires_grad=True)\nif x.sum() > 100:\n    y = x.exp()",
                               "else:\n    y = x.sigmoid()\ny.add_(1)\ny.sum().backward()"],
                              "syntax error in cell 3 at line 1:1: invalid syntax"),
    "loop_body_continued": (["x = torch.randn(3, requires_grad=True)\nfor i in range(2):\n    y = x.exp()",
                             "    y.add_(1)\n    y.sum().backward()"],
                            "syntax error in cell 3 at line 1:4: unexpected indent"),
}


@pytest.mark.parametrize("shape", sorted(CONTINUED_CELLS))
def test_check_fix_and_verify_agree_on_a_cell_that_does_not_parse_alone(tmp_path, shape):
    """`check` used to analyse the joined cells and report FIP101 where `fix` (and `verify`) said "syntax error in
    cell 3": each cell must parse alone, as Jupyter runs it, so all three name the cell that does not."""
    cells, error = CONTINUED_CELLS[shape]
    path = write_notebook(tmp_path / "nb.ipynb", [new_code_cell("import torch"), *map(new_code_cell, cells)])
    compile(join_cells(["import torch", *cells]).text, "<joined>", "exec")  # the joined cells do parse
    before = path.read_bytes()
    expected = f"nb.ipynb: error: {error}"
    checked = cli("check", "nb.ipynb", "--no-cache", cwd=tmp_path)
    assert checked.returncode == 2, checked.stdout + checked.stderr
    assert expected in (checked.stdout + checked.stderr).splitlines(), checked.stdout + checked.stderr
    assert "FIP1" not in checked.stdout
    as_json = json.loads(cli("check", "nb.ipynb", "--no-cache", "--format", "json", cwd=tmp_path).stdout)
    assert as_json["diagnostics"] == [] and len(as_json["errors"]) == 1
    for command in (("fix",), ("fix", "--apply"), ("fix", "--apply", "--unsafe-fixes"), ("verify",)):
        result = cli(*command, "nb.ipynb", cwd=tmp_path)
        assert result.returncode == 2, (command, result.stdout, result.stderr)
        assert expected in (result.stdout + result.stderr).splitlines(), (command, result.stdout, result.stderr)
    assert path.read_bytes() == before


# ---------------------------------------------------------------------------------------------------------------
# Fix descriptions name the notebook's cells and lines, as the diagnostics do


def _cells_with_markdown(tmp_path: Path, code: list[str]) -> Path:
    """A notebook whose code cells are `code`, each after a markdown cell (so cell numbers and joined lines
    differ): code cell i is cell 2i."""
    cells = []
    for source in code:
        cells += [new_markdown_cell("Notes."), new_code_cell(source)]
    return write_notebook(tmp_path / "nb.ipynb", cells)


def test_check_show_fixes_names_the_cell_a_fix_rewrites(tmp_path):
    _cells_with_markdown(tmp_path, ["import torch\nx = torch.randn(3, requires_grad=True)",
                                    "u = x.exp()\nloss = u.sum()", "u[0] = 0.0\nloss.backward()"])
    result = cli("check", "nb.ipynb", "--show-fixes", "--no-cache", cwd=tmp_path)
    assert result.returncode == 1, result.stderr
    assert "= help: Clone the tensor `exp` saves where it runs (line 1 of cell 4), so the write leaves it intact: " \
           "`u = x.exp().clone()` (safe fix)" in result.stdout, result.stdout
    assert "(line 3)" not in result.stdout
    [d] = json.loads(cli("check", "nb.ipynb", "--format", "json", "--no-cache", cwd=tmp_path).stdout)["diagnostics"]
    assert d["cell"] == 6 and "(line 1 of cell 4)" in d["fix"]["description"], d


def test_a_fix_description_naming_lines_of_two_cells_names_both(tmp_path):
    """One write invalidates two saves, in cells 4 and 8: the clone at both names both places. (Cell 6 keeps the
    two rewritten lines apart: a rewrite of adjacent lines of two cells is refused, as one spanning them.)"""
    _cells_with_markdown(tmp_path, ["import torch\nx = torch.randn(3, requires_grad=True)\nu = x * 2",
                                    "a = u.pow(2)", "c = 1", "b = u.sin()", "u.add_(1)\n(a + b).sum().backward()"])
    result = cli("check", "nb.ipynb", "--show-fixes", "--no-cache", cwd=tmp_path)
    assert "where it runs (line 1 of cell 4 and line 1 of cell 8)" in result.stdout, result.stdout
    fixed = cli("fix", "nb.ipynb", cwd=tmp_path)
    assert "+a = u.clone().pow(2)" in fixed.stdout and "+b = u.clone().sin()" in fixed.stdout, fixed.stdout


def test_fix_descriptions_the_language_server_offers_name_the_cells():
    """The language server joins the cells (`CellLayout`) and asks `offer` for each diagnostic's fix, its
    quick fix's title: with `describe=layout.message`, the description names the cell's line."""
    pytest.importorskip("pygls")
    from fixinplace.engine import check_source
    from fixinplace.fix import offer
    from fixinplace.lsp.convert import fix_title
    from fixinplace.lsp.notebooks import CellLayout
    from fixinplace.settings import Settings

    sources = ["import torch\nx = torch.randn(3, requires_grad=True)", "u = x.exp()\nloss = u.sum()",
               "u[0] = 0.0\nloss.backward()"]
    layout = CellLayout([f"cell:{i}" for i in range(3)], sources, [2, 4, 6])
    diagnostics = check_source(layout.text, "nb.ipynb", Settings())
    [offered] = offer(layout.text, "nb.ipynb", diagnostics, Settings(), admissible=layout.admits,
                      describe=layout.message)
    assert fix_title(offered) == ("Clone the tensor `exp` saves where it runs (line 1 of cell 4), so the write "
                                  "leaves it intact: `u = x.exp().clone()`")
    [plain] = offer(layout.text, "nb.ipynb", diagnostics, Settings(), admissible=layout.admits)
    assert "(line 3)" in plain.fix.description  # without `describe`: the joined text's own lines


def test_cell_lines_in_names_lists_and_leaves_named_lines_alone():
    from fixinplace.notebook import cell_lines_in

    joined = join_cells(["a = 1\nb = 2", "c = 3", "d = 4\ne = 5"])
    numbers = [2, 4, 7]
    assert cell_lines_in("saved at line 2, written at line 5", joined, numbers) == \
        "saved at line 2 of cell 2, written at line 2 of cell 7"
    assert cell_lines_in("where it runs (lines 1 and 2)", joined, numbers) == "where it runs (lines 1 and 2 of cell 2)"
    assert cell_lines_in("(lines 1, 3 and 5)", joined, numbers) == \
        "(line 1 of cell 2, line 1 of cell 4 and line 2 of cell 7)"
    named = "at line 2 of cell 7 and lines 1 and 2 of cell 2, see other.py:3"
    assert cell_lines_in(named, joined, numbers) == named
