"""The component split: a file's independent top-level parts are analysed apart, the results memoised.

The split must never change what a file reports (checked on every fixture against the whole-file analysis), and
it must let a re-analysis after an edit run only the edited part."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

from fixinplace import engine
from fixinplace.analysis import analyze_module, components
from fixinplace.lines import line_texts

ROOT = Path(__file__).resolve().parents[1]

TWO_FUNCTIONS = '''import torch


def first(x):
    y = x.exp()
    y.add_(1)
    return y


def second(x):
    z = torch.sigmoid(x)
    z.mul_(2)
    return z
'''


def parts_of(source: str) -> list[list[int]]:
    """The first lines of each component's statements."""
    tree = ast.parse(source)
    return [[stmt.lineno for stmt in part.statements]
            for part in components.split(tree, source, line_texts(source))]


def test_independent_functions_are_apart_and_each_gets_the_imports_it_names():
    assert parts_of(TWO_FUNCTIONS) == [[4], [1, 10]]


def test_a_function_and_its_caller_are_one_part():
    source = TWO_FUNCTIONS + "\n\nout = first(torch.ones(2, requires_grad=True))\n"
    assert parts_of(source) == [[1, 4, 16], [1, 10]]  # `torch` named by the call


def test_a_method_name_read_as_an_attribute_links():
    source = '''import torch


class Model(torch.nn.Module):
    def step(self):
        pass


def train(opt):
    opt.step()
'''
    assert parts_of(source) == [[1, 4, 9]]


def test_global_statements_and_star_imports_keep_the_file_whole():
    assert parts_of(TWO_FUNCTIONS + "\n\ndef third():\n    global counter\n    counter = 1\n") == [[1, 4, 10, 16]]
    assert parts_of("from torch import *\n" + TWO_FUNCTIONS) == [[1, 2, 5, 11]]


def test_a_rebound_import_links_like_any_name():
    source = '''try:
    import apex
except ImportError:
    apex = None


def a():
    return apex


def b():
    return apex
'''
    assert parts_of(source) == [[1, 7, 11]]


def test_an_import_inside_try_links_its_users():
    source = '''try:
    from torch.nn.functional import scaled_dot_product_attention as sdpa
except ImportError:
    pass


def a(q):
    return sdpa(q, q, q)


def b(x):
    return x
'''
    assert parts_of(source) == [[1, 7], [11]]


def test_free_standing_statements_run_in_every_part():
    source = "import torch\ntorch.manual_seed(0)\n" + TWO_FUNCTIONS.split("\n", 1)[1]
    assert parts_of(source) == [[1, 2, 5], [1, 2, 11]]


def _fixture_files() -> list[Path]:
    return sorted([*ROOT.glob("fixtures/check/*.py"), *ROOT.glob("fixtures/fix/*/before.py"),
                   *ROOT.glob("bench/fixsets/*/*/before.py"), *ROOT.glob("bench/fixsets/*/*.py")])


def test_the_split_never_changes_what_a_file_reports(monkeypatch):
    """Every fixture and bench program: the diagnostics with the split equal those of the whole file."""
    files = _fixture_files()
    assert len(files) > 100
    differ = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        monkeypatch.setenv("FIXINPLACE_NO_MEMO", "1")
        monkeypatch.setenv("FIXINPLACE_NO_SPLIT", "1")
        whole = engine.analyse_source(text, str(path))
        monkeypatch.setenv("FIXINPLACE_NO_SPLIT", "0")
        split = engine.analyse_source(text, str(path))
        if whole != split:
            differ.append(path.name)
    assert differ == []


def _counting(source: str, path: str):
    """A real analysis of each part it is given, counting the parts analysed."""
    count = []

    def analyse(module: ast.Module):
        count.append([stmt.lineno for stmt in module.body])
        return analyze_module(module, source, path)

    return analyse, count


def test_an_edit_reanalyses_only_its_part(monkeypatch):
    monkeypatch.delenv("FIXINPLACE_NO_MEMO", raising=False)
    components.memo_clear()
    path = "memo_case.py"
    for source, expected in ((TWO_FUNCTIONS, [[4], [1, 10]]),
                             (TWO_FUNCTIONS, []),
                             (TWO_FUNCTIONS.replace("z.mul_(2)", "z.mul_(3)"), [[1, 10]])):
        analyse, count = _counting(source, path)
        found = components.analyse_components(ast.parse(source), source, path, line_texts(source), analyse,
                                              lambda part: True)
        assert count == expected
        assert {d.line for d in found if d.code == "FIP101"} == {6, 12}


def test_a_part_without_in_place_writes_is_not_analysed(monkeypatch):
    monkeypatch.setenv("FIXINPLACE_NO_MEMO", "1")
    source = TWO_FUNCTIONS + "\n\ndef clean(x):\n    return x.exp() * 2\n"
    analyse, count = _counting(source, "prefilter_case.py")
    components.analyse_components(ast.parse(source), source, "prefilter_case.py", line_texts(source), analyse,
                                  lambda part: engine.might_write_in_place(part.text))
    assert [lines[-1] for lines in count] == [4, 10]


@pytest.mark.parametrize("edit", ["x.add_(1)", "pass"])
def test_the_memo_follows_the_project_files_a_part_imports(tmp_path, edit):
    """A part that imports a project module is analysed again when that module changes."""
    os.environ.pop("FIXINPLACE_NO_MEMO", None)
    (tmp_path / "helpers.py").write_text(f"def bump(x):\n    {edit}\n    return x\n", encoding="utf-8")
    main = tmp_path / "main.py"
    source = ("import torch\nfrom helpers import bump\n\n\ndef run(w):\n    y = torch.sigmoid(w)\n"
              "    bump(y)\n    return y\n")
    main.write_text(source, encoding="utf-8")
    first = engine.analyse_source(source, str(main))
    (tmp_path / "helpers.py").write_text("def bump(x):\n    return x + 1\n\n\n", encoding="utf-8")
    second = engine.analyse_source(source, str(main))
    if edit == "x.add_(1)":
        assert any(d.code == "FIP101" for d in first)
    assert not any(d.code == "FIP101" for d in second)
