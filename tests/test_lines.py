"""Lines end only at `\\n`, `\\r\\n` and `\\r` (as for Python's tokenizer and LSP), everywhere: form feeds, `\\x1c`-`\\x1e`,
`\\x85`, U+2028 and U+2029 inside a line move no diagnostic, name, edit or LSP position (`str.splitlines` breaks at
all of them)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from clirun import cli
from lsprotocol import types
from lspclient import client, code_actions, diagnostics_for, open_doc  # noqa: F401 (client: a fixture)
from pytest_lsp import LanguageClient

from fixinplace.lines import line_texts, split_lines
from fixinplace.lsp.edits import apply_edits

ODD = ["\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]

PAGE_BREAK = "import torch\n\x0c\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"
PAGE_BREAK_FIXED = "import torch\n\x0c\n\ndef f(x):\n    y = x.exp()\n    y = y.add(1)\n    return y\n"


def fip(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return cli(*args, cwd=cwd, timeout=120, encoding="utf-8")


@pytest.mark.parametrize("odd", ODD)
def test_only_python_line_endings_split(odd: str):
    text = f"a{odd}b\r\nc\rd\n\ne"
    assert split_lines(text) == [f"a{odd}b\r\n", "c\r", "d\n", "\n", "e"]
    assert line_texts(text) == [f"a{odd}b", "c", "d", "", "e"]
    assert line_texts("x\n") == ["x"] and line_texts("") == [] and line_texts("\n") == [""]


@pytest.mark.parametrize("odd", ODD)
def test_check_names_and_columns_after_odd_characters(tmp_path: Path, odd: str):
    """A non-ASCII line after a comment holding the character: the column and the written name stay right."""
    (tmp_path / "m.py").write_text(
        f'import torch\n\n\ndef f(x):\n    # a page{odd} break\n    y = x.exp()\n    s = "éé"; y.add_(1)\n'
        "    return y\n", encoding="utf-8")
    out = fip("check", "m.py", "--no-cache", cwd=tmp_path).stdout
    assert out.startswith("m.py:7:15: FIP101 [warning] [*] in-place write to `y`: `y` was saved by `exp` at line 6"), out


@pytest.mark.parametrize("text", [
    "\x0cimport torch\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n",  # a page break opening line 1
    "import torch\n\ndef f(x):\n    y = x.exp()\n\x0c    z = y * 2\n    y.add_(1)\n    return y, z\n",  # indentation
    # in the first indented line, where LibCST takes the module's default indentation from
    "import torch\n\n\ndef f(x):\n\x0c    y = x.exp()\n    y.add_(1)\n    return y\n",
])
def test_fix_keeps_form_feeds_that_libcst_drops(tmp_path: Path, text: str):
    """LibCST's code drops a form feed before a statement; the fix keeps every line it does not rewrite."""
    path = tmp_path / "m.py"
    path.write_bytes(text.encode())
    proc = fip("fix", "--apply", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert path.read_bytes().decode() == text.replace("    y.add_(1)", "    y = y.add(1)")


def test_fix_of_code_libcst_cannot_parse_is_a_one_line_error(tmp_path: Path):
    """Python compiles a form feed opening a method's indentation; LibCST's parser rejects it."""
    bad = ("import torch\n\n\nclass M(torch.nn.Module):\n\x0c    def forward(self, x):\n        y = x.exp()\n"
           "        y.add_(1)\n        return y\n")
    compile(bad, "bad.py", "exec")
    (tmp_path / "bad.py").write_text(bad)
    (tmp_path / "good.py").write_text(PAGE_BREAK)
    proc = fip("fix", "--apply", "bad.py", "good.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("bad.py: error:")]
    assert len(errors) == 1 and "cannot rewrite this file: LibCST cannot parse it, though Python can" in errors[0]
    assert "internal error" not in proc.stdout + proc.stderr
    assert (tmp_path / "good.py").read_text() == PAGE_BREAK_FIXED and (tmp_path / "bad.py").read_text() == bad


# --- the language server ---------------------------------------------------------------------------------------


async def _fix_all(client: LanguageClient, uri: str, text: str) -> str:
    whole = types.Range(start=types.Position(line=0, character=0),
                        end=types.Position(line=len(line_texts(text)), character=0))
    actions = await code_actions(client, uri, whole, only=["source.fixAll.fixinplace"])
    assert len(actions) == 1, actions
    return apply_edits(text, actions[0].edit.changes[uri])


@pytest.mark.asyncio
async def test_lsp_fix_all_and_incremental_edits_after_odd_characters(client: LanguageClient, tmp_path: Path):
    """fix-all lands on the written line after a page break; incremental edits after a form feed and U+2028 leave
    the server with the editor's text (its diagnostics are where `check` puts them, its fix-all is `fix`'s)."""
    await client.initialize_session(types.InitializeParams(capabilities=types.ClientCapabilities(),
                                                           root_uri=tmp_path.as_uri()))
    uri = open_doc(client, tmp_path / "m.py", PAGE_BREAK)
    diagnostics = await diagnostics_for(client, uri)
    assert [d.range.start.line for d in diagnostics] == [5]
    assert await _fix_all(client, uri, PAGE_BREAK) == PAGE_BREAK_FIXED

    # The editor inserts a comment holding U+2028 after the page break, then renames `y`.
    text = PAGE_BREAK
    edits = [(types.Range(start=types.Position(line=3, character=0), end=types.Position(line=3, character=0)),
              "# see\u2028below\n"),
             (types.Range(start=types.Position(line=5, character=4), end=types.Position(line=5, character=5)), "z"),
             (types.Range(start=types.Position(line=6, character=4), end=types.Position(line=6, character=5)), "z"),
             (types.Range(start=types.Position(line=7, character=11), end=types.Position(line=7, character=12)), "z")]
    for version, (rng, new) in enumerate(edits, start=2):
        text = apply_edits(text, [types.TextEdit(range=rng, new_text=new)])
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[types.TextDocumentContentChangePartial(range=rng, text=new)]))
    assert text == ("import torch\n\x0c\n\n# see\u2028below\ndef f(x):\n    z = x.exp()\n    z.add_(1)\n"
                    "    return z\n")
    diagnostics = await diagnostics_for(client, uri)
    (tmp_path / "m.py").write_text(text, encoding="utf-8")
    expected = fip("check", "m.py", "--no-cache", cwd=tmp_path).stdout
    assert expected.startswith("m.py:7:5: FIP101")
    assert [(d.range.start.line, d.range.start.character, d.code) for d in diagnostics] == [(6, 4, "FIP101")]
    assert await _fix_all(client, uri, text) == text.replace("    z.add_(1)", "    z = z.add(1)")


def test_lsp_position_past_a_line_end_is_the_line_end():
    """LSP: a character past the line's length means the line's end, never its line break (pygls's clamp is one
    unit too far)."""
    from fixinplace.lsp.document import SourceDocument

    for text in (PAGE_BREAK, PAGE_BREAK.replace("\n", "\r\n")):
        doc = SourceDocument("file:///m.py", text)
        doc.apply_change(types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=0, character=12), end=types.Position(line=0, character=13)),
            text=""))
        assert doc.source == text
        doc.apply_change(types.TextDocumentContentChangePartial(
            range=types.Range(start=types.Position(line=4, character=99), end=types.Position(line=4, character=99)),
            text="  # x"))
        assert doc.source == text.replace("x.exp()", "x.exp()  # x")
