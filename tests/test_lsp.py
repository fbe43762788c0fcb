"""End-to-end tests of `fixinplace lsp` with a real LSP client (pytest-lsp), the server a real subprocess."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import client  # noqa: F401 (a fixture)
from lspclient import DETACHED, TIMEOUT, checked_hover, code_actions, diagnostics_for, open_doc

from fixinplace.diagnostics import Diagnostic, Related, Severity
from fixinplace.lsp.convert import to_character, to_lsp, to_position
from fixinplace.lsp.edits import apply_edits, minimal_edits

ROOT = Path(__file__).resolve().parents[1]
FIX = ROOT / "fixtures" / "fix"
SAFE_CASE = FIX / "01_clone_before_write_int_index"


async def start(client: LanguageClient, root: Path, options: dict | None = None) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=root.as_uri(),
            initialization_options=options,
        )
    )


def change(client: LanguageClient, uri: str, version: int, text: str, range: types.Range | None = None) -> None:
    event = (
        types.TextDocumentContentChangePartial(range=range, text=text)
        if range is not None
        else types.TextDocumentContentChangeWholeDocument(text=text)
    )
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version), content_changes=[event]
        )
    )


def fixed_by_cli(tmp_path: Path, source: Path, *flags: str) -> str:
    """What `fixinplace fix --apply` makes of a copy of `source`."""
    copy = tmp_path / "cli" / source.name
    copy.parent.mkdir(exist_ok=True)
    shutil.copy(source, copy)
    subprocess.run([sys.executable, "-m", "fixinplace", "fix", "--apply", "--quiet", *flags, str(copy)], check=False,
                   capture_output=True, cwd=tmp_path)
    return copy.read_text(encoding="utf-8")


def whole(text: str) -> types.Range:
    return types.Range(start=types.Position(line=0, character=0), end=types.Position(line=len(text.splitlines()), character=0))


# --- units -----------------------------------------------------------------------------------------------------


def test_positions_are_utf16_on_non_ascii_lines():
    line = 's = "𝔁é"; e[0] = 0.0'  # 𝔁 is 2 UTF-16 units, é one
    lines = ["import torch", line]
    col = line.index("e[0]") + 1  # 1-based character column
    d = Diagnostic("x.py", 2, col, 2, col + len("e[0] = 0.0"), "FIP101", Severity.ERROR, "msg",
                   related=(Related(1, 1, "saved here"),))
    lsp_d = to_lsp(d, lines, "file:///x.py")
    assert lsp_d.range.start == types.Position(line=1, character=col - 1 + 1)
    assert lsp_d.range.end.character == lsp_d.range.start.character + len("e[0] = 0.0")
    assert to_character(lines, lsp_d.range.start) == (2, col)
    assert to_position(lines, 1, 1) == types.Position(line=0, character=0)


def test_minimal_edits_touch_only_changed_lines():
    old = "a\nb\nc\nd\n"
    new = "a\nB\nc\nd\nE\n"
    edits = minimal_edits(old, new)
    assert [(e.range.start.line, e.range.end.line, e.new_text) for e in edits] == [(1, 2, "B\n"), (4, 4, "E\n")]
    assert apply_edits(old, edits) == new
    assert apply_edits("x = 1", minimal_edits("x = 1", "x = 2\ny = 3")) == "x = 2\ny = 3"


def test_server_does_not_import_torch_or_run_code():
    code = (
        "import sys; from fixinplace.lsp.server import create_server; from fixinplace.engine import check_source; "
        f"check_source(open({str(SAFE_CASE / 'before.py')!r}).read(), 'x.py'); create_server(); "
        "import codemods; assert 'torch' not in sys.modules, 'torch imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


# --- end to end ------------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_diagnostics_quickfix_and_result(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    text = (SAFE_CASE / "before.py").read_text()
    uri = open_doc(client, tmp_path / "model.py", text)
    diags = await diagnostics_for(client, uri)
    assert len(diags) == 1
    d = diags[0]
    assert (d.code, d.severity, d.source) == ("FIP101", types.DiagnosticSeverity.Error, "fixinplace")
    assert d.range == types.Range(start=types.Position(line=8, character=4), end=types.Position(line=8, character=14))
    assert "saved by `exp`" in d.message
    assert d.related_information and d.related_information[0].location.range.start.line == 7
    assert d.related_information[0].location.uri == uri

    actions = await code_actions(client, uri, d.range)
    quick = [a for a in actions if a.kind == types.CodeActionKind.QuickFix and not a.title.startswith("Ignore ")]
    assert len(quick) == 1 and quick[0].title.startswith("Clone `e` before the write")
    edits = quick[0].edit.changes[uri]
    assert all(e.range.end.line - e.range.start.line <= 1 for e in edits)  # not a whole-document replace
    fixed = apply_edits(text, edits)
    assert fixed == fixed_by_cli(tmp_path, SAFE_CASE / "before.py")

    change(client, uri, 2, fixed)
    after = await diagnostics_for(client, uri)
    assert not [x for x in after if x.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]

    hover_none = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=0, character=0))
    )
    assert hover_none is None


@pytest.mark.asyncio
async def test_fix_all_matches_fix_command(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    text = (SAFE_CASE / "before.py").read_text() + "\n\n" + (FIX / "87_setitem_out_of_place_mask_of_saved_output" / "before.py").read_text()
    src = tmp_path / "two.py"
    src.write_text(text)
    uri = open_doc(client, src, text)
    assert await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, whole(text), only=["source.fixAll.fixinplace"])
    assert [a.kind for a in actions] == ["source.fixAll.fixinplace"]
    assert apply_edits(text, actions[0].edit.changes[uri]) == fixed_by_cli(tmp_path, src)


@pytest.mark.asyncio
async def test_hover_explains_the_write(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    uri = open_doc(client, tmp_path / "m.py", (SAFE_CASE / "before.py").read_text())
    await diagnostics_for(client, uri)
    hover = await checked_hover(client, uri, types.Position(line=8, character=5))
    assert hover is not None
    assert "FIP101" in hover.contents.value and "saved by `exp`" in hover.contents.value
    assert "Fix: Clone `e` before the write" in hover.contents.value


@pytest.mark.asyncio
async def test_incremental_change_and_syntax_error(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    text = (SAFE_CASE / "after.py").read_text()
    uri = open_doc(client, tmp_path / "m.py", text)
    assert await diagnostics_for(client, uri) == []
    clone_line = text.splitlines().index("    e = e.clone()")
    # delete the clone line with a range edit: the write now breaks backward
    change(client, uri, 2, "", types.Range(start=types.Position(line=clone_line, character=0),
                                            end=types.Position(line=clone_line + 1, character=0)))
    diags = await diagnostics_for(client, uri)
    assert [d.code for d in diags] == ["FIP101"] and diags[0].range.start.line == clone_line
    # a syntax error mid-edit: the last good diagnostics stay, the server keeps answering
    change(client, uri, 3, "(((", types.Range(start=types.Position(line=clone_line, character=4),
                                               end=types.Position(line=clone_line, character=4)))
    kept = await diagnostics_for(client, uri)
    assert [d.code for d in kept] == ["FIP101"]
    assert await code_actions(client, uri, kept[0].range) == []
    # valid again (the edit undone): diagnostics are computed afresh
    change(client, uri, 4, "", types.Range(start=types.Position(line=clone_line, character=4),
                                            end=types.Position(line=clone_line, character=7)))
    again = await diagnostics_for(client, uri)
    assert [d.code for d in again] == ["FIP101"]
    # save re-analyses too
    client.text_document_did_save(types.DidSaveTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))
    assert [d.code for d in await diagnostics_for(client, uri)] == ["FIP101"]


@pytest.mark.asyncio
async def test_settings_and_unsafe_fixes(client: LanguageClient, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace]\nignore = ["FIP101"]\n')
    await start(client, tmp_path)
    text = DETACHED
    (tmp_path / "u.py").write_text(text)
    uri = open_doc(client, tmp_path / "u.py", text)
    assert await diagnostics_for(client, uri) == []  # ignored by the project's pyproject
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"fixinplace": {"select": ["ALL"]}})
    )
    diags = await diagnostics_for(client, uri)
    assert [d.code for d in diags] == ["FIP101"]
    # its only fix is unsafe: offered all the same, titled so, not preferred (fix-all leaves it alone)
    quick = [a for a in await code_actions(client, uri, diags[0].range) if a.kind == "quickfix" and a.title.endswith("(unsafe)")]
    assert len(quick) == 1 and quick[0].title.startswith("Use the out-of-place `pow`") and not quick[0].is_preferred, quick
    client.workspace_did_change_configuration(
        types.DidChangeConfigurationParams(settings={"select": ["ALL"], "unsafeFixes": True})
    )
    diags = await diagnostics_for(client, uri)
    quick = [a for a in await code_actions(client, uri, diags[0].range) if a.kind == "quickfix" and a.title.endswith("(unsafe)")]
    assert len(quick) == 1 and quick[0].title.startswith("Use the out-of-place `pow`"), quick
    assert apply_edits(text, quick[0].edit.changes[uri]) == fixed_by_cli(tmp_path, tmp_path / "u.py",
                                                                         "--unsafe-fixes", "--select", "ALL")


@pytest.mark.asyncio
async def test_initialization_options(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path, {"ignore": ["FIP1"]})
    uri = open_doc(client, tmp_path / "m.py", (SAFE_CASE / "before.py").read_text())
    assert await diagnostics_for(client, uri) == []


def test_tcp_option_is_validated():
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "lsp", "--tcp", "host:notaport"], capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 2 and "--tcp" in proc.stderr


@pytest.mark.asyncio
async def test_tcp_server_answers(tmp_path: Path):
    import socket

    from pygls.lsp.client import LanguageClient as PlainClient

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen([sys.executable, "-m", "fixinplace", "lsp", "--tcp", str(port)])
    try:
        client = PlainClient("t", "0")
        for _ in range(100):
            try:
                await client.start_tcp("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.1)
        result = await asyncio.wait_for(client.initialize_async(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri())), TIMEOUT)
        assert result.server_info.name == "fixinplace"
        assert result.capabilities.hover_provider
        await asyncio.wait_for(client.shutdown_async(None), TIMEOUT)
        client.exit(None)
        await client.stop()
    finally:
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
