"""Notebook documents (LSP 3.17) for the language server: a notebook's code cells joined into one text for the
analysis (`fixinplace.notebook.join_cells`: in cell order, IPython magics masked), and its lines mapped back to the
cells, so that each cell gets the diagnostics of its lines and an edit of the joined text becomes edits of the
cells it changes.
"""

from __future__ import annotations

from typing import Callable

from lsprotocol import types
from pygls.workspace import TextDocument

from fixinplace.lsp.convert import UTF16, Layout, text_lines
from fixinplace.lsp.edits import minimal_edits
from fixinplace.notebook import CellSplitError, cell_lines_in, join_cells

#: What the server syncs: the Python code cells of Jupyter notebooks.
NOTEBOOK_SYNC = types.NotebookDocumentSyncOptions(
    notebook_selector=[types.NotebookDocumentFilterWithCells(
        notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])],
    save=True,
)


class CellLayout(Layout):
    """The lines of a notebook's joined code cells, each in its cell's document."""

    def __init__(self, uris: list[str], sources: list[str], numbers: list[int] | None = None,
                 encoding: str = UTF16) -> None:
        self.cells = uris  # the code cells' document URIs, in notebook order
        self.sources = sources  # their texts
        self.numbers = numbers or list(range(1, len(uris) + 1))  # their 1-based numbers among all the cells
        self.joined = join_cells(sources)
        super().__init__(uris[0] if uris else "", text_lines(self.joined.text), encoding)

    @property
    def text(self) -> str:
        """The joined text (what is analysed)."""
        return self.joined.text

    def admits(self, new_text: str) -> bool:
        """Whether a rewrite of the joined text splits back into cells that parse (`JoinedCells.admits`)."""
        return self.joined.admits(new_text)

    def place(self, index: int) -> tuple[str, int]:
        cell, line = self.joined.cell_position(index + 1)
        if not self.cells:
            return self.uri, index
        cell = min(max(cell, 0), len(self.cells) - 1)
        return self.cells[cell], max(line - 1, 0)

    def line_of(self, uri: str, index: int) -> int | None:
        if uri not in self.cells:
            return None
        return self.joined.joined_line(self.cells.index(uri), index + 1) - 1

    def uris(self) -> list[str]:
        return list(self.cells)

    def message(self, text: str) -> str:
        # The lines a message names ("saved ... at line 12") are the joined text's: named as the cells' lines, as
        # `fixinplace check` names them in a notebook (with `fixinplace.notebook`'s own rewrite).
        return cell_lines_in(text, self.joined, self.numbers)

    def line_name(self, line: int) -> str:
        cell, in_cell = self.joined.cell_position(line)
        return f"Line {in_cell} of cell {self.numbers[cell]}" if self.cells else f"Line {line}"

    def edit(self, old: str, new: str) -> dict[str, list[types.TextEdit]] | None:
        """Edits of the cells whose text changes when the joined text `old` (this layout's) becomes `new`; None when
        the change cannot be split into cells (it spans two cells, or rewrites a masked IPython line)."""
        assert old == self.text, "an edit of another text than this layout's"
        try:
            sources = self.joined.split(new)
        except CellSplitError:
            return None
        changes = {}
        for uri, before, after in zip(self.cells, self.sources, sources):
            if after != before:
                changes[uri] = minimal_edits(before, after, self.encoding)
        return changes


def notebook_source(notebook: types.NotebookDocument, cell: Callable[[str], TextDocument],
                    encoding: str = UTF16) -> tuple[str, CellLayout]:
    """The joined text of a notebook's Python code cells (`cell(uri)`: a cell's document), and its layout (its
    positions in code units of `encoding`)."""
    code = [(number, cell(c.document)) for number, c in enumerate(notebook.cells, 1)
            if c.kind == types.NotebookCellKind.Code]
    code = [(number, d) for number, d in code if d.language_id in (None, "", "python")]
    layout = CellLayout([d.uri for _, d in code], [d.source for _, d in code], [number for number, _ in code],
                        encoding)
    return layout.text, layout
