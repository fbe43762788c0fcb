"""Parsing in pieces (large files, and texts that share pieces with one parsed before) gives `ast.parse`'s tree and
errors; large files are checked one at a time."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixinplace import engine
from fixinplace import parsing
from fixinplace.parsing import parse_module
from fixinplace.settings import Settings

ROOT = Path(__file__).resolve().parent.parent

HAZARD = "def f{k}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n\n\n"


def same_tree(a: ast.AST, b: ast.AST) -> bool:
    return ast.dump(a, include_attributes=True) == ast.dump(b, include_attributes=True)


PIECES = {
    "definitions": "import torch\n\n" + "".join(HAZARD.format(k=k) for k in range(12)),
    "decorators and classes": (
        "import torch\n@torch.no_grad()\ndef a(x):\n    return x\n\nclass B:\n    @staticmethod\n"
        "    def c(y):\n        return y\n\n@dec\n@dec2(1,\n  2)\nclass D(B):\n    pass\nasync def e():\n"
        "    await f()\nx = 1\ndef g(): pass\n"
    ),
    "CRLF, lone CR and form feeds": (
        "import torch\r\n\r\ndef a(x):\r\n    return x\r\r\x0cdef b(y):\r    return y\n\x0c\ndef c(z):\n"
        "    return z  # \u2028 a comment\n"
    ),
    "a docstring quoting a definition": (
        'def a():\n    """Example:\n\ndef not_code():\n    pass\n"""\n    return 1\n\ndef b():\n    return 2\n'
    ),
    "brackets across a definition line": "x = [\n1,\n]\ny = (\n'''\ndef z(): pass\n''')\ndef w(): pass\n",
    "a line continuation": "x = 1 + \\\n2\ndef f(): pass\n",
}


@pytest.mark.parametrize("name", sorted(PIECES))
@pytest.mark.parametrize("piece", [1, 16, 64])
def test_parsing_in_pieces_gives_the_tree_of_the_whole_text(name: str, piece: int) -> None:
    source = PIECES[name]
    assert same_tree(parse_module(source, piece=piece), ast.parse(source))


def test_real_files_parse_to_the_same_tree_in_pieces() -> None:
    files = sorted((ROOT / "fixinplace").rglob("*.py")) + sorted((ROOT / "fixtures").rglob("*.py"))
    assert len(files) > 50
    for path in files:
        source = path.read_text(encoding="utf-8")
        assert same_tree(parse_module(source, piece=512), ast.parse(source)), path


def _edits(source: str) -> list[str]:
    """Versions of `source` as an editor or a fix makes them: one line changed, a line added, a line removed,
    text added at the end."""
    lines = source.splitlines(keepends=True)
    out = [source + "def added(): pass\n"]
    for i, line in enumerate(lines):
        out.append("".join(lines[:i] + [line.replace("return", "return  0 or", 1)] + lines[i + 1:]))
        out.append("".join(lines[:i] + ["    pass\n" if line.startswith(" ") else "pass\n", line] + lines[i + 1:]))
        out.append("".join(lines[:i] + lines[i + 1:]))
    return out


@pytest.mark.parametrize("name", sorted(PIECES))
def test_texts_assembled_from_remembered_pieces_are_parsed_as_a_whole(name: str) -> None:
    parsing.memo_clear()
    source = PIECES[name]
    for _ in range(2):  # parsed whole, then assembled from its pieces
        assert same_tree(parse_module(source), ast.parse(source))
    for edited in _edits(source):  # most pieces remembered, the edited one parsed alone
        try:
            expected = ast.parse(edited)
        except (SyntaxError, ValueError) as e:
            with pytest.raises(type(e)) as raised:
                parse_module(edited)
            assert str(raised.value) == str(e)
            continue
        assert same_tree(parse_module(edited), expected), edited


def test_remembered_pieces_never_stand_for_a_string_that_spans_a_cut() -> None:
    parsing.memo_clear()
    definitions = "".join(f"def f{k}():\n    return {k}\n" for k in range(6))
    parse_module("x = 1\n" + definitions)  # its definitions remembered, each on the lines it has below
    inside = 'y = """\n' + definitions + '"""\n'  # the same pieces on the same lines, inside a string now
    assert same_tree(parse_module(inside), ast.parse(inside))
    assert len(parse_module(inside).body) == 1


@pytest.mark.parametrize("source", [
    "def a():\n    return 1\n\ndef b(:\n    pass\n\ndef c():\n    return 3\n",
    "def a():\n    x = (1,\n\ndef b():\n    pass\n",
    "def a():\n    return 1\n\ndef b():\n    return 'x\n",
    "def a():\n    return 1\n\ndef b():\n\treturn 2\n        return 3\n",
    "def a():\n    return 1\n\ndef b():\n    return '\x00'\n",
])
def test_errors_are_those_of_the_whole_text(source: str) -> None:
    try:
        ast.parse(source)
    except (SyntaxError, ValueError) as e:
        expected = e
    with pytest.raises(type(expected)) as raised:
        parse_module(source, piece=8)
    assert str(raised.value) == str(expected)
    if isinstance(expected, SyntaxError):
        assert (raised.value.lineno, raised.value.offset) == (expected.lineno, expected.offset)


def test_a_large_file_is_checked_in_pieces_with_every_diagnostic_in_place() -> None:
    text = "import torch\n\n\n" + "".join(HAZARD.format(k=k) for k in range(5000))  # ~300 KB: two pieces
    assert len(text) > 256 * 1024
    lines = text.split("\n")
    writes = [i + 1 for i, line in enumerate(lines) if line == "    y.add_(1)"]
    found = engine.check_source(text, "big.py")
    assert [(d.line, d.column, d.code) for d in found] == [(n, 5, "FIP101") for n in writes]
    assert all(f"saved by `exp` at line {n - 1} " in d.message for d, n in zip(found, writes))


def test_large_files_are_checked_after_the_others_and_reported_in_order(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(engine, "LARGE_FILE_BYTES", 400)
    for k in range(40):
        body = "import torch\n\n\n" + "".join(HAZARD.format(k=j) for j in range(1 + (k % 3) * 5))
        (tmp_path / f"m{k:02}.py").write_text(body)
    sizes = sorted(p.stat().st_size for p in tmp_path.iterdir())
    assert sizes[0] < 400 < sizes[-1]
    parallel = engine.run_check([str(tmp_path)], Settings(jobs=2, cache=False))
    serial = engine.run_check([str(tmp_path)], Settings(jobs=1, cache=False))
    assert len(parallel.diagnostics) == sum(1 + (k % 3) * 5 for k in range(40))
    assert parallel.diagnostics == serial.diagnostics
    assert parallel.files == serial.files
