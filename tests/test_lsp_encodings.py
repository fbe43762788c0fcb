"""`fixinplace lsp` speaks the position encoding it negotiated (LSP 3.17 `general.positionEncodings`): UTF-8, UTF-16
or UTF-32 code units in every position it sends (diagnostics, related information, hover ranges, the edits of quick
fixes, ignore actions and fix-all) and reads (incremental `didChange`, hover and code action positions), in text
documents and notebook cells, on a line with non-BMP and non-ASCII characters before the hazard.

The server is a real subprocess spoken to in raw JSON-RPC (`lspclient.RawServer`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types

from lspclient import RawServer

from fixinplace.fix import fix_text
from fixinplace.lsp.edits import apply_edits
from fixinplace.settings import Settings

HEAD = "import torch\nx = torch.randn(3, requires_grad=True)\n"
LINE = 'y = x.exp(); s = "😀😀é"; y[0] = 0'  # 😀: 4 UTF-8 bytes, 2 UTF-16 units; é: 2 bytes, 1 unit
TAIL = "y.sum().backward()\n"
TEXT = HEAD + LINE + "\n" + TAIL
ROW = 2  # the 0-based line of LINE
WRITE = "y[0] = 0"
IGNORED = LINE + "  # fixinplace: ignore[FIP101]"

ENCODINGS = {"utf-8": ["utf-8", "utf-16"], "utf-16": ["utf-16"], "utf-32": ["utf-32", "utf-8"]}


def units(text: str, encoding: str) -> int:
    """Code units of `text` in an LSP position encoding (computed here independently of the server's code)."""
    if encoding == "utf-8":
        return len(text.encode("utf-8"))
    if encoding == "utf-16":
        return len(text.encode("utf-16-le")) // 2
    return len(text)


def at(line: str, index: int, encoding: str, row: int = ROW) -> dict:
    return {"line": row, "character": units(line[:index], encoding)}


def write_range(line: str, encoding: str, row: int = ROW) -> dict:
    start = line.index(WRITE)
    return {"start": at(line, start, encoding, row), "end": at(line, start + len(WRITE), encoding, row)}


def text_edits(raw: list[dict]) -> list[types.TextEdit]:
    return [types.TextEdit(range=types.Range(start=types.Position(**e["range"]["start"]),
                                             end=types.Position(**e["range"]["end"])), new_text=e["newText"])
            for e in raw]


@pytest.fixture
def server(tmp_path: Path):
    raw = RawServer(tmp_path)
    yield raw
    raw.kill()


def start(server: RawServer, root: Path, encoding: str) -> None:
    result = server.initialize(root, {"general": {"positionEncodings": ENCODINGS[encoding]}})
    assert result["capabilities"]["positionEncoding"] == encoding


def fip101(diagnostics: list[dict] | None) -> dict:
    found = [d for d in diagnostics or [] if d["code"] == "FIP101"]
    assert len(found) == 1, diagnostics
    return found[0]


def code_actions(server: RawServer, id: int, uri: str, rng: dict, diagnostic: dict, only: list[str]) -> list[dict]:
    answer = server.request(id, "textDocument/codeAction", {
        "textDocument": {"uri": uri}, "range": rng, "context": {"diagnostics": [diagnostic], "only": only}}, 120)
    assert answer is not None and "error" not in answer, answer
    return answer["result"] or []


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_text_document_positions_use_the_negotiated_encoding(server: RawServer, tmp_path: Path, encoding: str):
    start(server, tmp_path, encoding)
    path = tmp_path / "m.py"
    uri = server.open(path, TEXT)
    d = fip101(server.diagnostics(uri, 60))
    assert d["range"] == write_range(LINE, encoding)
    # related information: the save by `exp` on the same line, spanning it to its end (counted in `encoding`)
    related = [r["location"]["range"] for r in d.get("relatedInformation") or []]
    saved = {"start": at(LINE, LINE.index("x.exp()"), encoding), "end": at(LINE, len(LINE), encoding)}
    assert saved in related, related

    # hover: read at the write's first character, not one character before it
    hover = server.request(2, "textDocument/hover", {"textDocument": {"uri": uri}, "position": d["range"]["start"]},
                           120)
    assert hover is not None and "FIP101" in hover["result"]["contents"]["value"]
    assert hover["result"]["range"] == d["range"]
    before = at(LINE, LINE.index(WRITE) - 1, encoding)
    assert server.request(3, "textDocument/hover", {"textDocument": {"uri": uri}, "position": before})["result"] is None

    # quick fixes: the ignore action and the fix, applied as a client of this encoding applies them
    actions = code_actions(server, 4, uri, d["range"], d, ["quickfix"])
    ignore = next(a for a in actions if a["title"] == "Ignore FIP101 for this line")
    assert apply_edits(TEXT, text_edits(ignore["edit"]["changes"][uri]), encoding) == HEAD + IGNORED + "\n" + TAIL
    fixed = fix_text(TEXT, str(path), Settings(project_root=tmp_path)).source
    assert fixed != TEXT
    fix = next(a for a in actions if a is not ignore)
    assert apply_edits(TEXT, text_edits(fix["edit"]["changes"][uri]), encoding) == fixed
    fix_all = code_actions(server, 5, uri, d["range"], d, ["source.fixAll.fixinplace"])
    assert apply_edits(TEXT, text_edits(fix_all[0]["edit"]["changes"][uri]), encoding) == fixed

    # an incremental change whose range is counted in `encoding`: é becomes ü€ (other widths in every encoding)
    new_line = LINE.replace("é", "ü€")
    server.send(method="textDocument/didChange", params={
        "textDocument": {"uri": uri, "version": 2},
        "contentChanges": [{"range": {"start": at(LINE, LINE.index("é"), encoding),
                                      "end": at(LINE, LINE.index("é") + 1, encoding)}, "text": "ü€"}]})
    d = fip101(server.diagnostics(uri, 60))
    assert d["range"] == write_range(new_line, encoding)
    actions = code_actions(server, 6, uri, d["range"], d, ["quickfix"])
    ignore = next(a for a in actions if a["title"] == "Ignore FIP101 for this line")
    new_text = HEAD + new_line + "\n" + TAIL
    assert apply_edits(new_text, text_edits(ignore["edit"]["changes"][uri]), encoding) == (
        HEAD + new_line + "  # fixinplace: ignore[FIP101]\n" + TAIL)
    server.close()


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_notebook_cell_positions_use_the_negotiated_encoding(server: RawServer, tmp_path: Path, encoding: str):
    start(server, tmp_path, encoding)
    notebook = (tmp_path / "n.ipynb").as_uri()
    cells = [f"vscode-notebook-cell:{tmp_path}/n.ipynb#W{i}sZmlsZQ==" for i in range(2)]
    sources = [HEAD, LINE + "\n" + TAIL]
    server.send(method="notebookDocument/didOpen", params={
        "notebookDocument": {"uri": notebook, "notebookType": "jupyter-notebook", "version": 1,
                             "cells": [{"kind": 2, "document": cell} for cell in cells]},
        "cellTextDocuments": [{"uri": cell, "languageId": "python", "version": 1, "text": text}
                              for cell, text in zip(cells, sources)]})
    d = fip101(server.diagnostics(cells[1], 60))
    assert d["range"] == write_range(LINE, encoding, row=0)
    hover = server.request(2, "textDocument/hover",
                           {"textDocument": {"uri": cells[1]}, "position": d["range"]["start"]}, 120)
    assert hover is not None and hover["result"]["range"] == d["range"]
    actions = code_actions(server, 3, cells[1], d["range"], d, ["quickfix"])
    ignore = next(a for a in actions if a["title"] == "Ignore FIP101 for this line")
    assert apply_edits(sources[1], text_edits(ignore["edit"]["changes"][cells[1]]), encoding) == IGNORED + "\n" + TAIL
    server.close()
