"""The editor features of `fixinplace lsp` (issue 15), with a real LSP client (pytest-lsp) and the server a real
subprocess: quick fixes for unsafe fixes, fix-all and the unsafe setting, related information and hover on every
diagnostic, and the "Ignore FIP101 for this line" action."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import DETACHED, checked_hover, client, code_actions, diagnostics_for, open_doc  # noqa: F401 (client)

from fixinplace.lsp.edits import apply_edits
from fixinplace.rules import RULES

ROOT = Path(__file__).resolve().parents[1]
SAFE_CASE = (ROOT / "fixtures" / "fix" / "01_clone_before_write_int_index" / "before.py").read_text()
SAFE_WRITE = types.Range(start=types.Position(line=8, character=4), end=types.Position(line=8, character=14))
BOTH = SAFE_CASE + "\n\n" + DETACHED


async def start(client: LanguageClient, root: Path, options: dict | None = None) -> None:
    await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(), root_uri=root.as_uri(), initialization_options=options))


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def hover(client: LanguageClient, uri: str, position: types.Position) -> types.Hover | None:
    return await checked_hover(client, uri, position)


def fixed_by_cli(tmp_path: Path, text: str, *flags: str) -> str:
    """What `fixinplace fix --apply` makes of `text` in a file of its own (under `tmp_path`, with its config)."""
    copy = tmp_path / "cli_copy.py"
    copy.write_text(text, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "fixinplace", "fix", "--apply", "--quiet", *flags, str(copy)],
                   check=False, capture_output=True, cwd=tmp_path, timeout=300)
    out = copy.read_text(encoding="utf-8")
    copy.unlink()
    return out


def whole(text: str) -> types.Range:
    return types.Range(start=types.Position(line=0, character=0),
                       end=types.Position(line=len(text.splitlines()), character=0))


def blocking(diagnostics: list[types.Diagnostic]) -> list[types.Diagnostic]:
    return [d for d in diagnostics if d.severity in (types.DiagnosticSeverity.Error, types.DiagnosticSeverity.Warning)]


def fixes(actions: list[types.CodeAction]) -> list[types.CodeAction]:
    """The quick fixes that rewrite the write (not the ignore action)."""
    return [a for a in actions if a.kind == types.CodeActionKind.QuickFix and not a.title.startswith("Ignore ")]


# --- 1. unsafe fixes -------------------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_unsafe_only_hazard_gets_an_unsafe_quick_fix(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    uri = open_doc(client, tmp_path / "m.py", BOTH)
    diags = blocking(await diagnostics_for(client, uri))
    assert len(diags) == 2
    safe_d, unsafe_d = sorted(diags, key=lambda d: d.range.start.line)

    safe = fixes(await code_actions(client, uri, safe_d.range))
    assert len(safe) == 1 and safe[0].is_preferred and "(unsafe)" not in safe[0].title

    unsafe = fixes(await code_actions(client, uri, unsafe_d.range))
    assert len(unsafe) == 1, [a.title for a in unsafe]
    action = unsafe[0]
    assert action.kind == types.CodeActionKind.QuickFix
    assert action.title.endswith(" (unsafe)"), action.title
    assert not action.is_preferred
    assert action.diagnostics and action.diagnostics[0].code == "FIP101"
    # the edit is what `fix --unsafe-fixes` does to that hazard, and it removes it
    fixed = apply_edits(BOTH, action.edit.changes[uri])
    assert fixed == SAFE_CASE + "\n\n" + fixed_by_cli(tmp_path, DETACHED, "--unsafe-fixes") != BOTH
    change(client, uri, 2, fixed)
    assert len(blocking(await diagnostics_for(client, uri))) == 1  # the safe one is left


@pytest.mark.asyncio
async def test_fix_all_applies_safe_fixes_only_by_default(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    uri = open_doc(client, tmp_path / "m.py", BOTH)
    assert len(blocking(await diagnostics_for(client, uri))) == 2
    actions = await code_actions(client, uri, whole(BOTH), only=["source.fixAll.fixinplace"])
    assert [a.kind for a in actions] == ["source.fixAll.fixinplace"]
    fixed = apply_edits(BOTH, actions[0].edit.changes[uri])
    assert fixed == fixed_by_cli(tmp_path, BOTH)
    assert fixed != fixed_by_cli(tmp_path, BOTH, "--unsafe-fixes")
    change(client, uri, 2, fixed)
    left = blocking(await diagnostics_for(client, uri))
    assert [d.range.start.line for d in left] == [fixed.splitlines().index("    target.pow_(2)")]


@pytest.mark.asyncio
async def test_fix_all_applies_unsafe_fixes_when_the_client_says_so(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path, {"unsafeFixes": True})
    uri = open_doc(client, tmp_path / "m.py", BOTH)
    await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, whole(BOTH), only=["source.fixAll"])
    assert len(actions) == 1
    fixed = apply_edits(BOTH, actions[0].edit.changes[uri])
    assert fixed == fixed_by_cli(tmp_path, BOTH, "--unsafe-fixes")
    change(client, uri, 2, fixed)
    assert blocking(await diagnostics_for(client, uri)) == []


@pytest.mark.asyncio
async def test_fix_all_applies_unsafe_fixes_when_the_project_says_so(client: LanguageClient, tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text("[tool.fixinplace]\nunsafe-fixes = true\n")
    await start(client, tmp_path)
    src = tmp_path / "m.py"
    src.write_text(BOTH)
    uri = open_doc(client, src, BOTH)
    await diagnostics_for(client, uri)
    actions = await code_actions(client, uri, whole(BOTH), only=["source.fixAll.fixinplace"])
    fixed = apply_edits(BOTH, actions[0].edit.changes[uri])
    assert fixed == fixed_by_cli(tmp_path, BOTH)  # the CLI reads the same config: unsafe fixes on
    assert "target.pow_(2)" not in fixed


# --- 2. related information and hover, for every rule code -----------------------------------------------------


def rule_examples() -> list[tuple[str, int, str]]:
    return [(rule.code, i, program) for rule in RULES for i, program in enumerate(rule.flagged)]


@pytest.mark.asyncio
async def test_every_rule_code_gets_related_information_and_a_hover(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path, {"select": ["ALL"], "severity": "info"})
    seen: set[str] = set()
    for code, i, program in rule_examples():
        uri = open_doc(client, tmp_path / f"{code.lower()}_{i}.py", program)
        diags = await diagnostics_for(client, uri)
        lines = program.splitlines()
        expected = {n + 1 for n, line in enumerate(lines) if f"# expect: {code}" in line}
        assert expected <= {d.range.start.line + 1 for d in diags if d.code == code}, (code, i, diags)
        for d in diags:
            seen.add(d.code)
            if d.code in ("FIP101", "FIP103", "FIP104"):
                # the op that saved the tensor: its line holds the op the message names as the saver
                saved = [r for r in d.related_information or [] if "saved for backward by" in r.message]
                assert saved and all(r.location.uri == uri for r in saved), (code, i, d)
                first = saved[0]
                op = first.message.split("`")[3]
                assert f"`{op}` at line {first.location.range.start.line + 1}" in d.message, (code, i, d)
                assert lines[first.location.range.start.line][first.location.range.start.character:].strip()
            elif d.code == "FIP102":
                created = d.related_information or []
                assert created and "requires_grad" in lines[created[0].location.range.start.line], (code, i, d)
            shown = await hover(client, uri, d.range.start)
            assert shown is not None, (code, i, d)
            assert d.code in shown.contents.value and d.message[:40] in shown.contents.value
            assert shown.range == d.range
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri)))
        await diagnostics_for(client, uri)  # the close clears them
    assert seen == {rule.code for rule in RULES}


@pytest.mark.asyncio
async def test_hover_names_the_rule_and_an_unsafe_fix(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    uri = open_doc(client, tmp_path / "m.py", DETACHED)
    d = blocking(await diagnostics_for(client, uri))[0]
    shown = (await hover(client, uri, d.range.start)).contents.value
    assert "**FIP101** `saved-tensor-mutated` (error)" in shown
    assert "Unsafe fix: Use the out-of-place `pow`" in shown
    assert "Line 6: `p` saved for backward by `softmax` here" in shown


# --- 3. the ignore action ------------------------------------------------------------------------------------


async def ignore_action(client: LanguageClient, uri: str, d: types.Diagnostic) -> types.CodeAction:
    actions = [a for a in await code_actions(client, uri, d.range) if a.title == f"Ignore {d.code} for this line"]
    assert len(actions) == 1
    assert actions[0].kind == types.CodeActionKind.QuickFix and not actions[0].is_preferred
    return actions[0]


@pytest.mark.asyncio
@pytest.mark.parametrize("line, expected", [
    ("    e[0] = 0.0", "    e[0] = 0.0  # fixinplace: ignore[FIP101]"),
    ("    e[0] = 0.0  # zero the first entry", "    e[0] = 0.0  # zero the first entry  # fixinplace: ignore[FIP101]"),
    ("    e[0] = 0.0  # fixinplace: ignore[FIP102]", "    e[0] = 0.0  # fixinplace: ignore[FIP101, FIP102]"),
    ("    e[0] = 0.0  # noqa: E501", "    e[0] = 0.0  # noqa: E501  # fixinplace: ignore[FIP101]"),
])
async def test_ignore_action_adds_a_comment_the_checker_honours(client: LanguageClient, tmp_path: Path,
                                                                line: str, expected: str):
    await start(client, tmp_path)
    text = SAFE_CASE.replace("    e[0] = 0.0", line)
    uri = open_doc(client, tmp_path / "m.py", text)
    d = blocking(await diagnostics_for(client, uri))[0]
    action = await ignore_action(client, uri, d)
    edits = action.edit.changes[uri]
    assert [(e.range.start.line, e.range.end.line) for e in edits] == [(8, 8)]  # that line only
    ignored = apply_edits(text, edits)
    assert ignored == text.replace(line, expected)
    change(client, uri, 2, ignored)
    assert blocking(await diagnostics_for(client, uri)) == []
    # the CLI agrees
    (tmp_path / "m.py").write_text(ignored)
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "check", "m.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.asyncio
async def test_ignore_action_on_a_write_spanning_a_string_goes_where_a_comment_can_stand(client: LanguageClient,
                                                                                         tmp_path: Path):
    await start(client, tmp_path)
    text = SAFE_CASE.replace("    e[0] = 0.0", '    e[0] = len("""a\nb""")')
    uri = open_doc(client, tmp_path / "m.py", text)
    d = blocking(await diagnostics_for(client, uri))[0]
    assert d.range.end.line == d.range.start.line + 1
    ignored = apply_edits(text, (await ignore_action(client, uri, d)).edit.changes[uri])
    assert 'b""")  # fixinplace: ignore[FIP101]\n' in ignored
    change(client, uri, 2, ignored)
    assert blocking(await diagnostics_for(client, uri)) == []


def test_editor_docs_name_every_setting_and_action():
    text = (ROOT / "docs" / "editors.md").read_text()
    for needle in ("unsafeFixes", "unsafe-fixes", "source.fixAll.fixinplace", "Ignore FIP101 for this line",
                   "(unsafe)", "Neovim", "Helix", "VS Code", "notebook"):
        assert needle in text, needle


# --- a call's hazard whose write is in another file ------------------------------------------------------------

BLOCKS = """from torch import nn


class Residual(nn.Module):
    def __init__(self, width, act):
        super().__init__()
        self.body = nn.Linear(width, width)
        self.act = act()
        self.skip = nn.Linear(width, width)

    def forward(self, x):
        skip = self.skip(x)
        x = self.act(self.body(x))
        x += skip
        return x
"""

TRAIN = """import torch
from torch import nn

from blocks import Residual

net = Residual(4, nn.ReLU)
loss = net(torch.randn(3, 4)).pow(2).sum()
loss.backward()
"""


@pytest.mark.asyncio
async def test_a_call_site_hazard_gets_a_workspace_edit_of_the_file_it_writes_in(client: LanguageClient,
                                                                                tmp_path: Path):
    """The error is shown at the call; its quick fix edits the module's file (where `fix --apply` repairs it),
    and the edit is exactly what `fix --apply` writes there."""
    await start(client, tmp_path)
    (tmp_path / "blocks.py").write_text(BLOCKS, encoding="utf-8")
    uri = open_doc(client, tmp_path / "train.py", TRAIN)
    diags = blocking(await diagnostics_for(client, uri))
    assert [(d.code, d.range.start.line) for d in diags] == [("FIP101", 6)]
    found = fixes(await code_actions(client, uri, diags[0].range))
    assert len(found) == 1 and found[0].is_preferred, [a.title for a in found]
    assert "blocks.py" in found[0].title
    blocks_uri = (tmp_path / "blocks.py").resolve().as_uri()
    assert list(found[0].edit.changes) == [blocks_uri]
    edited = apply_edits(BLOCKS, found[0].edit.changes[blocks_uri])
    copy = tmp_path / "cli"
    copy.mkdir()
    (copy / "blocks.py").write_text(BLOCKS, encoding="utf-8")
    (copy / "train.py").write_text(TRAIN, encoding="utf-8")
    subprocess.run([sys.executable, "-m", "fixinplace", "fix", "--apply", "--quiet", "."], check=False,
                   capture_output=True, cwd=copy, timeout=300)
    assert edited == (copy / "blocks.py").read_text(encoding="utf-8") != BLOCKS
