"""Notebook document sync (LSP 3.17) in `fixinplace lsp`, with a real LSP client (pytest-lsp) and the server a real
subprocess: a notebook's Python code cells are analysed together, in order; each cell gets the diagnostics of its
lines, related information may point into another cell, and quick fixes edit the cell they belong to."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from lspclient import TIMEOUT, client, code_actions  # noqa: F401 (client: a fixture)

from fixinplace.lsp.edits import apply_edits

CODE, MARKUP = types.NotebookCellKind.Code, types.NotebookCellKind.Markup
# Cell 0 makes the tensor that `exp` saves (and has an IPython magic), a markdown cell, cell 2 writes it in place,
# cell 3 runs the backward that needs it.
CELLS = [
    (CODE, "python", "import torch\n%matplotlib inline\nx = torch.randn(3, 4, requires_grad=True)\ne = torch.exp(x)\n"),
    (MARKUP, "markdown", "# The write\n"),
    (CODE, "python", "e[0] = 0.0\nloss = (e * torch.arange(4.0)).sum()\n"),
    (CODE, "python", "loss.backward()\n"),
]
WRITE = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=10))


class Notebook:
    """A notebook as an editor holds it: its URI, its cells' URIs (VS Code's form) and their texts."""

    def __init__(self, path: Path, cells=CELLS) -> None:
        self.uri = path.as_uri()
        self.cells = [(kind, language, f"vscode-notebook-cell:{path}#W{i}sZmlsZQ==", text)
                      for i, (kind, language, text) in enumerate(cells)]
        self.version = 1

    def uri_of(self, index: int) -> str:
        return self.cells[index][2]

    def code_uris(self) -> list[str]:
        return [uri for kind, _, uri, _ in self.cells if kind == CODE]

    def open(self, client: LanguageClient) -> None:
        client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=self.uri, notebook_type="jupyter-notebook", version=self.version,
                cells=[types.NotebookCell(kind=kind, document=uri) for kind, _, uri, _ in self.cells]),
            cell_text_documents=[types.TextDocumentItem(uri=uri, language_id=language, version=1, text=text)
                                 for _, language, uri, text in self.cells]))

    def edit_cell(self, client: LanguageClient, index: int, edits: list[types.TextEdit]) -> str:
        """Apply text edits to one cell, as the editor does when a workspace edit is applied; the new text."""
        kind, language, uri, text = self.cells[index]
        new_text = apply_edits(text, edits)
        self.cells[index] = (kind, language, uri, new_text)
        self.version += 1
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
                types.NotebookDocumentCellContentChanges(
                    document=types.VersionedTextDocumentIdentifier(uri=uri, version=self.version),
                    changes=[types.TextDocumentContentChangePartial(range=e.range, text=e.new_text) for e in edits])
            ]))))
        return new_text

    def insert_cell(self, client: LanguageClient, index: int, text: str) -> str:
        """Insert a Python code cell before cell `index`; its URI."""
        uri = f"{self.uri.replace('file://', 'vscode-notebook-cell:')}#W{len(self.cells) + 10}sZmlsZQ=="
        self.cells.insert(index, (CODE, "python", uri, text))
        self.version += 1
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    array=types.NotebookCellArrayChange(start=index, delete_count=0,
                                                        cells=[types.NotebookCell(kind=CODE, document=uri)]),
                    did_open=[types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)])))))
        return uri

    def remove_cell(self, client: LanguageClient, index: int) -> str:
        """Delete cell `index`; its URI."""
        _, _, uri, _ = self.cells.pop(index)
        self.version += 1
        client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
            notebook_document=types.VersionedNotebookDocumentIdentifier(uri=self.uri, version=self.version),
            change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(
                structure=types.NotebookDocumentCellChangeStructure(
                    array=types.NotebookCellArrayChange(start=index, delete_count=1),
                    did_close=[types.TextDocumentIdentifier(uri=uri)])))))
        return uri

    def close(self, client: LanguageClient) -> None:
        client.notebook_document_did_close(types.DidCloseNotebookDocumentParams(
            notebook_document=types.NotebookDocumentIdentifier(uri=self.uri),
            cell_text_documents=[types.TextDocumentIdentifier(uri=uri) for _, _, uri, _ in self.cells]))


async def start(client: LanguageClient, root: Path) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=types.ClientCapabilities(notebook_document=types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities())),
        root_uri=root.as_uri()))


async def published(client: LanguageClient, uris: list[str]) -> dict[str, list[types.Diagnostic]]:
    """The diagnostics published for each of `uris` since the last call (waited for; then forgotten, so that the
    next call waits for the next ones). The client's own record of every publish is read: one analysis publishes
    for each cell at once, faster than one waiter per message would see them."""

    async def wait():
        while set(uris) - set(client.diagnostics):
            await asyncio.sleep(0.02)

    await asyncio.wait_for(wait(), TIMEOUT)
    return {uri: list(client.diagnostics.pop(uri)) for uri in uris}


def fixes(actions: list[types.CodeAction]) -> list[types.CodeAction]:
    return [a for a in actions if a.kind == types.CodeActionKind.QuickFix and not a.title.startswith("Ignore ")]


@pytest.mark.asyncio
async def test_server_advertises_notebook_sync(client: LanguageClient, tmp_path: Path):
    result = await start(client, tmp_path)
    sync = result.capabilities.notebook_document_sync
    assert sync is not None and sync.save
    selector = sync.notebook_selector[0]
    assert selector.notebook == "jupyter-notebook" and [c.language for c in selector.cells] == ["python"]


@pytest.mark.asyncio
async def test_cross_cell_hazard_in_a_notebook(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    nb = Notebook(tmp_path / "train.ipynb")
    nb.open(client)
    first, write_cell, last = nb.uri_of(0), nb.uri_of(2), nb.uri_of(3)
    diags = await published(client, nb.code_uris())
    # reported in the cell that writes, despite the magic line; related information points into the first cell
    assert diags[first] == [] and diags[last] == []
    [d] = diags[write_cell]
    assert (d.code, d.range) == ("FIP101", WRITE)
    saved = d.related_information[0]
    assert saved.location.uri == first and saved.location.range.start == types.Position(line=3, character=4)
    assert "`exp`" in saved.message
    # the message names the lines as the cells number them (cell 1 is the first cell, the markdown one is cell 2)
    assert "saved by `exp` at line 4 of cell 1" in d.message and "at line 1 of cell 4" in d.message, d.message
    assert any(r.location.uri == last and r.location.range.start.line == 0 for r in d.related_information)

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=write_cell), position=types.Position(line=0, character=2)))
    assert hover is not None and "FIP101" in hover.contents.value and hover.range == WRITE
    assert "Line 4 of cell 1: `e` saved for backward by `exp` here" in hover.contents.value
    assert await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=first), position=types.Position(line=0, character=2))) is None

    # the quick fix and the ignore action edit the writing cell only
    actions = await code_actions(client, write_cell, WRITE)
    [fix] = fixes(actions)
    assert fix.is_preferred and list(fix.edit.changes) == [write_cell]
    [ignore] = [a for a in actions if a.title == "Ignore FIP101 for this line"]
    assert list(ignore.edit.changes) == [write_cell]
    assert apply_edits(nb.cells[2][3], ignore.edit.changes[write_cell]).startswith(
        "e[0] = 0.0  # fixinplace: ignore[FIP101]\n")
    # no action for a range of another cell
    assert await code_actions(client, first, WRITE, only=[types.CodeActionKind.QuickFix]) == []
    # fix-all, asked from any cell, edits the cells that change
    [fix_all] = await code_actions(client, first, WRITE, only=["source.fixAll.fixinplace"])
    assert list(fix_all.edit.changes) == [write_cell]
    # and under the notebook kind (VS Code's `notebook.codeActionsOnSave`), with the same edits
    [nb_fix_all] = await code_actions(client, first, WRITE, only=["notebook.source.fixAll"])
    assert nb_fix_all.kind == "notebook.source.fixAll.fixinplace" and nb_fix_all.edit == fix_all.edit

    fixed = nb.edit_cell(client, 2, fix.edit.changes[write_cell])
    assert "e = e.clone()" in fixed and nb.cells[0][3] == CELLS[0][2]
    diags = await published(client, nb.code_uris())
    assert all(v == [] for v in diags.values()), diags

    # a new cell between the save and the (now fixed) write: writes the saved tensor again
    inserted = nb.insert_cell(client, 1, "e.mul_(2)\n")
    diags = await published(client, nb.code_uris())
    assert [d.code for d in diags[inserted]] == ["FIP101"] and diags[write_cell] == []

    client.notebook_document_did_save(types.DidSaveNotebookDocumentParams(
        notebook_document=types.NotebookDocumentIdentifier(uri=nb.uri)))
    assert [d.code for d in (await published(client, nb.code_uris()))[inserted]] == ["FIP101"]

    # deleting that cell clears its diagnostics
    assert nb.remove_cell(client, 1) == inserted
    assert (await published(client, [inserted, *nb.code_uris()]))[inserted] == []

    nb.close(client)
    cleared = await published(client, nb.code_uris())
    assert all(v == [] for v in cleared.values())


@pytest.mark.asyncio
async def test_notebook_syntax_error_in_one_cell_keeps_the_last_diagnostics(client: LanguageClient, tmp_path: Path):
    await start(client, tmp_path)
    nb = Notebook(tmp_path / "nb.ipynb")
    nb.open(client)
    write_cell = nb.uri_of(2)
    assert [d.code for d in (await published(client, [write_cell]))[write_cell]] == ["FIP101"]
    nb.edit_cell(client, 3, [types.TextEdit(range=types.Range(start=types.Position(line=0, character=0),
                                                                end=types.Position(line=0, character=0)),
                                            new_text="(((")])
    kept = await published(client, nb.code_uris())
    assert [d.code for d in kept[write_cell]] == ["FIP101"]


@pytest.mark.asyncio
async def test_quick_fix_title_names_the_cells_lines(client: LanguageClient, tmp_path: Path):
    """A fix that rewrites another cell (the clone where `exp` runs) names that line as the cells number it, as the
    diagnostic and `check --show-fixes` do, not as a line of the joined cells."""
    await start(client, tmp_path)
    nb = Notebook(tmp_path / "clone.ipynb", [
        (CODE, "python", "import torch\nx = torch.randn(3, requires_grad=True)\n"),
        (MARKUP, "markdown", "# The save\n"),
        (CODE, "python", "u = x.exp()\nloss = u.sum()\n"),
        (CODE, "python", "u[0] = 0.0\nloss.backward()\n"),
    ])
    nb.open(client)
    write_cell = nb.uri_of(3)
    diags = await published(client, nb.code_uris())
    [d] = diags[write_cell]
    [fix] = fixes(await code_actions(client, write_cell, d.range))
    assert "(line 1 of cell 3)" in fix.title and "(line 3)" not in fix.title, fix.title
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=write_cell), position=d.range.start))
    assert hover is not None and "(line 3)" not in hover.contents.value
