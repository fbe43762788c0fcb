"""Jupyter notebooks: their code cells joined into one Python text for the analysis, and back.

- `join_cells(sources)` joins the code cells' texts, in order, into one Python text (`JoinedCells`), so that the
  state the analysis follows flows from one cell into the next, as it does in a kernel that runs them in order.
  IPython syntax is masked: a line magic (`%timeit f()`, `%load_ext x`), a shell escape (`!pip install x`), an
  assignment from either (`x = !ls`, `y = %env`) and a help request (`obj?`, `??obj`) become a `pass` line at the
  same indentation (so a block that holds one still parses), and every line of a cell that opens with a cell magic
  (`%%time`, `%%bash`) becomes `pass`. Masked lines are never analysed nor rewritten; `JoinedCells.split` puts
  them back verbatim.
- Every cell takes at least one line of the joined text (an empty cell one empty line) and ends with a line
  ending, so that each joined line belongs to exactly one cell.
- `parse_notebook(text)` / `read_notebook(path)` read an nbformat 4 notebook as JSON with the standard library;
  `Notebook.with_sources(sources)` gives the notebook's text with new code-cell sources and everything else
  (outputs, metadata, markdown and raw cells, key order, indentation, `ensure_ascii` habit, final newline) as it
  was: a notebook whose sources do not change is returned byte for byte.
"""

from __future__ import annotations

import ast
import bisect
import difflib
import json
import re
import warnings
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Sequence

from fixinplace.diagnostics import Related, one_line
from fixinplace.lines import line_texts, split_lines


#: What a masked line becomes (after the line's own indentation).
MASK = "pass"


class CellSplitError(ValueError):
    """A rewrite of the joined text that cannot be split back into cells (one line, without the path)."""


class NotebookError(Exception):
    """A notebook that cannot be read (one line, without the path)."""


# ---------------------------------------------------------------------------------------------------------------
# Masking IPython syntax


@dataclass
class _Lexer:
    """Just enough of Python's tokenizer to know whether a line starts a statement: open brackets, an open
    string, a backslash continuation."""

    depth: int = 0
    quote: str | None = None
    continued: bool = False

    def at_statement_start(self) -> bool:
        return self.depth == 0 and self.quote is None and not self.continued

    def feed(self, line: str) -> int:
        """Advance over one line; return where its comment starts (the line's length when it has none)."""
        text = line.rstrip("\r\n")
        i, n, comment = 0, len(text), len(text)
        while i < n:
            if self.quote is not None:
                while i < n:
                    if text[i] == "\\":
                        i += 2
                    elif text.startswith(self.quote, i):
                        i += len(self.quote)
                        self.quote = None
                        break
                    else:
                        i += 1
                continue
            c = text[i]
            if c == "#":
                comment = i
                break
            if c in "'\"":
                self.quote = c * 3 if text.startswith(c * 3, i) else c
                i += len(self.quote)
                continue
            if c in "([{":
                self.depth += 1
            elif c in ")]}":
                self.depth = max(0, self.depth - 1)
            i += 1
        self.continued = text[:comment].endswith("\\")
        if self.quote in ("'", '"') and not self.continued:
            self.quote = None  # an unterminated one-line string: the parser reports it
        return comment


_ASSIGNED_MAGIC = re.compile(r"[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[!%]")


def _is_magic(line: str, lexer: _Lexer) -> bool:
    """Whether a line that starts a statement is IPython syntax rather than Python."""
    stripped = line.lstrip(" \t")
    if stripped.startswith(("%", "!", "?")):
        return True
    if _ASSIGNED_MAGIC.match(stripped):
        return True
    probe = _Lexer()
    code = line[: probe.feed(line)].rstrip()
    return code.endswith("?") and probe.quote is None


def _masked_line(line: str, indent_of: str) -> str:
    body = line.rstrip("\r\n")
    ending = line[len(body):]
    indent = indent_of[: len(indent_of) - len(indent_of.lstrip(" \t"))]
    return f"{indent}{MASK}{ending}"


def mask_cell(source: str) -> tuple[list[str], tuple[int, ...]]:
    """A cell's lines with its IPython syntax masked, and the (1-based) numbers of the masked lines."""
    lines = split_lines(source)
    first = next((line for line in lines if line.strip()), "")
    if first.startswith("%%"):  # a cell magic: the whole cell is the magic's input, not Python
        return [_masked_line(line, "") for line in lines], tuple(range(1, len(lines) + 1))
    out: list[str] = []
    masked: list[int] = []
    lexer = _Lexer()
    magic_indent: str | None = None  # the masked magic line a backslash continues
    for number, line in enumerate(lines, 1):
        if magic_indent is not None:
            out.append(_masked_line(line, magic_indent))
            masked.append(number)
            if not line.rstrip("\r\n").endswith("\\"):
                magic_indent = None
            continue
        if lexer.at_statement_start() and line.strip() and _is_magic(line, lexer):
            out.append(_masked_line(line, line))
            masked.append(number)
            if line.rstrip("\r\n").endswith("\\"):
                magic_indent = line
            continue
        lexer.feed(line)
        out.append(line)
    return out, tuple(masked)


# ---------------------------------------------------------------------------------------------------------------
# Joining cells


def _ensure_ending(line: str) -> str:
    return line if line.endswith(("\n", "\r")) else line + "\n"


def _strip_ending(text: str) -> str:
    for ending in ("\r\n", "\n", "\r"):
        if text.endswith(ending):
            return text[: -len(ending)]
    return text


@dataclass(frozen=True)
class JoinedCells:
    """Code cells joined into one Python text, and the map between its lines and the cells' lines.

    Cells are numbered from 0 here (in the order given); lines from 1, both in the joined text and in a cell.
    """

    text: str
    sources: tuple[str, ...]  # the cells' own texts
    starts: tuple[int, ...]  # the joined line of each cell's first line
    sizes: tuple[int, ...]  # how many joined lines each cell takes (at least 1)
    masked: tuple[tuple[int, ...], ...]  # each cell's masked lines
    lines: tuple[str, ...] = field(repr=False, default=())  # the joined lines, with their endings

    @property
    def line_count(self) -> int:
        """How many lines the joined text has."""
        return len(self.lines)

    def cell_position(self, line: int) -> tuple[int, int]:
        """The (cell, line in the cell) of a joined line; lines out of range are clamped to the text."""
        if not self.starts:
            return 0, max(line, 1)
        line = min(max(line, 1), self.line_count)
        cell = bisect.bisect_right(self.starts, line) - 1
        return cell, line - self.starts[cell] + 1

    def joined_line(self, cell: int, line: int) -> int:
        """The joined line of a cell's line; out-of-range lines are clamped to the cell."""
        if not self.starts:
            return max(line, 1)
        cell = min(max(cell, 0), len(self.starts) - 1)
        return self.starts[cell] + min(max(line, 1), self.sizes[cell]) - 1

    def is_masked(self, line: int) -> bool:
        """Whether a joined line is masked IPython syntax."""
        cell, in_cell = self.cell_position(line)
        return bool(self.starts) and in_cell in self.masked[cell]

    def admits(self, new_text: str) -> bool:
        """Whether a rewrite of the joined text splits back into cells that each parse (`fix_text`'s
        `admissible`: a rewrite that moves code into another cell or touches a masked line is not made)."""
        try:
            sources = self.split(new_text)
        except CellSplitError:
            return False
        return not syntax_error(join_cells(sources), list(range(1, len(sources) + 1)))

    def split(self, new_text: str) -> list[str]:
        """Each cell's source after a rewrite of the joined text into `new_text` (masked lines restored verbatim).

        Raises `CellSplitError` when the rewrite changes a masked line or one change spans two cells.
        """
        if new_text == self.text:
            return list(self.sources)
        old = list(self.lines)
        new = split_lines(new_text)
        if new and not new[-1].endswith(("\n", "\r")):
            new[-1] += "\n"
        owner = [cell for cell, size in enumerate(self.sizes) for _ in range(size)]
        parts: list[list[str]] = [[] for _ in self.sources]
        matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal":
                for i in range(i1, i2):
                    parts[owner[i]].append(self._restored(i))
                continue
            touched = {owner[i] for i in range(i1, i2)}
            if len(touched) > 1:
                first, last = min(touched), max(touched)
                raise CellSplitError(f"the rewrite of lines {i1 + 1}-{i2} of the joined cells spans cells "
                                     f"{first + 1} and {last + 1}")
            for i in range(i1, i2):
                if self.is_masked(i + 1):
                    cell, line = self.cell_position(i + 1)
                    raise CellSplitError(f"the rewrite changes line {line} of cell {cell + 1}, which is IPython "
                                         "syntax (masked)")
            if touched:
                cell = touched.pop()
            else:
                cell = self._owner_of_insert(i1, new[j1:j2], owner)
            if cell < 0:
                raise CellSplitError("the rewrite adds lines to a notebook without code cells")
            parts[cell].extend(new[j1:j2])
        result = []
        for source, lines in zip(self.sources, parts):
            text = "".join(lines)
            if not source.endswith(("\n", "\r")):
                text = _strip_ending(text)
            result.append(text)
        return result

    def _restored(self, index: int) -> str:
        """Joined line `index` (0-based) as the cell has it, masked lines put back, with a line ending."""
        cell, line = self.cell_position(index + 1)
        if line in self.masked[cell]:
            return _ensure_ending(split_lines(self.sources[cell])[line - 1])
        return self.lines[index]

    def _owner_of_insert(self, before: int, lines: list[str], owner: list[int]) -> int:
        """The cell that lines inserted before joined line `before` (0-based) belong to."""
        if not owner:
            return -1
        if before >= len(owner):
            return owner[-1]
        cell = owner[before]
        if before > 0 and owner[before - 1] != cell:
            # At a cell boundary: an indented line continues the block that ends the cell above (a cell never
            # starts indented); anything else opens the cell below.
            first = next((line for line in lines if line.strip()), "")
            if first[:1] in (" ", "\t"):
                return owner[before - 1]
        return cell


def join_cells(sources: Sequence[str]) -> JoinedCells:
    """Join code cells' texts, in order, into one Python text with IPython syntax masked (see the module doc)."""
    lines: list[str] = []
    starts: list[int] = []
    sizes: list[int] = []
    masked: list[tuple[int, ...]] = []
    for source in sources:
        cell_lines, cell_masked = mask_cell(source)
        if not cell_lines:
            cell_lines = ["\n"]
        cell_lines[-1] = _ensure_ending(cell_lines[-1])
        starts.append(len(lines) + 1)
        sizes.append(len(cell_lines))
        masked.append(cell_masked)
        lines.extend(cell_lines)
    return JoinedCells("".join(lines), tuple(sources), tuple(starts), tuple(sizes), tuple(masked), tuple(lines))


# ---------------------------------------------------------------------------------------------------------------
# Reading and writing .ipynb files


@dataclass(frozen=True)
class JsonStyle:
    """How a notebook's JSON is laid out, to write it back the same way."""

    indent: str | None = " "
    separators: tuple[str, str] = (",", ": ")
    ensure_ascii: bool = False
    final_newline: bool = True
    crlf: bool = False
    bom: bool = False

    def dumps(self, data: object) -> str:
        """`data` as JSON text in this style."""
        text = json.dumps(data, indent=self.indent, separators=self.separators, ensure_ascii=self.ensure_ascii)
        if self.final_newline:
            text += "\n"
        if self.crlf:
            text = text.replace("\n", "\r\n")
        return ("\ufeff" if self.bom else "") + text


def detect_style(text: str, data: object) -> tuple[JsonStyle, bool]:
    """The JSON style of a notebook's text, and whether writing `data` in it gives the text back exactly."""
    bom = text.startswith("\ufeff")
    body = text[1:] if bom else text
    crlf = "\r\n" in body
    final_newline = body.endswith("\n")
    m = re.match(r"\s*[\[{]\r?\n([ \t]*)", body)
    indent = m.group(1) if m else None
    if indent is not None:
        options = [(",", ": "), (",", ":")]
    else:
        options = [(", ", ": "), (",", ":"), (",", ": "), (", ", ":")]
    ascii_first = body.isascii()
    best: JsonStyle | None = None
    for ensure_ascii in (ascii_first, not ascii_first):
        for separators in options:
            style = JsonStyle(indent, separators, ensure_ascii, final_newline, crlf, bom)
            if best is None:
                best = style
            if style.dumps(data) == text:
                return style, True
    assert best is not None
    return best, False


@dataclass
class Notebook:
    """An nbformat 4 notebook: its JSON, how it was laid out, and which of its cells are code."""

    data: dict
    text: str  # the file's text, as read
    code_cells: tuple[int, ...]  # indices in `data["cells"]` of the Python code cells

    @cached_property
    def style(self) -> JsonStyle:
        """How the file's JSON is laid out (see `detect_style`)."""
        return detect_style(self.text, self.data)[0]

    @property
    def faithful(self) -> bool:
        """Whether writing the notebook back in its `style` gives its text exactly."""
        return self.style.dumps(self.data) == self.text

    def code_sources(self) -> list[str]:
        """The code cells' sources, in order."""
        return [cell_source(self.data["cells"][i]) for i in self.code_cells]

    def cell_number(self, code_cell: int) -> int:
        """The 1-based number, among all the notebook's cells, of the `code_cell`-th code cell (0-based)."""
        return self.code_cells[code_cell] + 1

    def code_cell_numbers(self) -> list[int]:
        """The 1-based number, among all the notebook's cells, of each code cell, in order."""
        return [index + 1 for index in self.code_cells]

    def join(self) -> JoinedCells:
        """The code cells joined (see `join_cells`)."""
        return join_cells(self.code_sources())

    def with_sources(self, sources: Sequence[str]) -> str:
        """The notebook's text with these code-cell sources; only the changed cells' `source` fields change."""
        if len(sources) != len(self.code_cells):
            raise ValueError(f"{len(sources)} sources for {len(self.code_cells)} code cells")
        changed = [(i, s) for i, s in zip(self.code_cells, sources) if cell_source(self.data["cells"][i]) != s]
        if not changed:
            return self.text
        data = json.loads(json.dumps(self.data))  # a copy: this notebook stays as read
        for index, source in changed:
            cell = data["cells"][index]
            cell["source"] = split_lines(source) if isinstance(cell["source"], list) else source
        return self.style.dumps(data)


def cell_source(cell: dict) -> str:
    """A cell's source as one string (nbformat allows a string or a list of strings)."""
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def _language(data: dict) -> str:
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    for key, name in (("language_info", "name"), ("kernelspec", "language")):
        value = metadata.get(key)
        if isinstance(value, dict) and isinstance(value.get(name), str):
            return value[name].lower()
    return "python"


def parse_notebook(text: str) -> Notebook:
    """Read a notebook's JSON text; raises `NotebookError` when it is not JSON or not an nbformat 4 notebook."""
    try:
        data = json.loads(text[1:] if text.startswith("\ufeff") else text)
    except json.JSONDecodeError as e:
        raise NotebookError(f"invalid notebook: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    except RecursionError:
        raise NotebookError("invalid notebook: the JSON is too deeply nested") from None
    if isinstance(data, dict) and "nbformat" in data and data["nbformat"] != 4:
        raise NotebookError(f"unsupported notebook format: nbformat {data['nbformat']!r} (only nbformat 4 is read)")
    if not isinstance(data, dict) or "cells" not in data or "nbformat" not in data:
        raise NotebookError("invalid notebook: not a Jupyter notebook (no 'nbformat' and 'cells')")
    cells = data["cells"]
    if not isinstance(cells, list):
        raise NotebookError("invalid notebook: 'cells' is not a list")
    code: list[int] = []
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict) or not isinstance(cell.get("cell_type"), str):
            raise NotebookError(f"invalid notebook: cell {index + 1} has no 'cell_type'")
        source = cell.get("source", "")
        if not (isinstance(source, str) or (isinstance(source, list) and all(isinstance(s, str) for s in source))):
            raise NotebookError(f"invalid notebook: cell {index + 1}'s 'source' is not text")
        if cell["cell_type"] == "code":
            code.append(index)
    if _language(data) != "python":
        code = []  # a notebook of another kernel (R, Julia): no Python to check
    return Notebook(data, text, tuple(code))


def decode_notebook(data: bytes) -> str:
    """A notebook file's bytes as text (JSON is UTF-8); raises `NotebookError` when they are not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise NotebookError(f"invalid notebook: not UTF-8 (invalid byte 0x{data[e.start]:02x} at byte offset "
                            f"{e.start})") from None


# ---------------------------------------------------------------------------------------------------------------
# Checking a notebook: the joined cells are analysed as one module, and the findings are placed in their cells


def cell_lines(text: str, number: int) -> list[str] | None:
    """The lines (without endings) of cell `number` (1-based, among all cells) of a notebook's JSON text, or None
    when the text is not a notebook or has no such cell."""
    cells = _cells_of(text)
    if cells is None or not 1 <= number <= len(cells):
        return None
    return line_texts(cell_source(cells[number - 1]))


@lru_cache(maxsize=4)
def _cells_of(text: str) -> list | None:
    try:
        return parse_notebook(text).data["cells"]
    except NotebookError:
        return None


def _place(joined: JoinedCells, numbers: Sequence[int], line: int) -> tuple[int, int]:
    cell, in_cell = joined.cell_position(line)
    return numbers[cell], in_cell


def to_cells(diagnostics: Sequence, joined: JoinedCells, numbers: Sequence[int]) -> list:
    """Diagnostics of the joined text placed in their cells: `cell` set (`numbers[i]`: the notebook's number of
    the i-th code cell), lines counted in the cell; a span that runs into the next cell ends with its own cell."""
    out = []
    for d in diagnostics:
        if not joined.starts:
            out.append(d)
            continue
        cell, line = _place(joined, numbers, d.line)
        end_cell, end_line = _place(joined, numbers, d.end_line)
        end_column = d.end_column
        if end_cell != cell:
            index = joined.cell_position(d.line)[0]
            end_line = joined.sizes[index]
            end_column = len(joined.lines[joined.starts[index] + end_line - 2].rstrip("\r\n")) + 1
        related = []
        for r in d.related:
            r_cell, r_line = _place(joined, numbers, r.line)
            related.append(Related(r_line, r.column, cell_lines_in(r.message, joined, numbers), cell=r_cell))
        fix = d.fix
        if fix is not None:
            fix = replace(fix, description=cell_lines_in(fix.description, joined, numbers))
        out.append(replace(d, cell=cell, line=line, end_line=end_line, end_column=end_column,
                           related=tuple(related), message=cell_lines_in(d.message, joined, numbers), fix=fix))
    return out


# "at line 12", "lines 6 and 9", "lines 3, 6 and 9" in a message or a fix's description: lines of the joined text
# (a line of another file is written `path:12`; one already named in its cell, `line 2 of cell 3`, is left alone).
_LINE_IN_MESSAGE = re.compile(r"(?<![\w:/.])(?:line (\d+)|lines (\d+(?:, \d+)* and \d+))\b(?! of cell)")


def cell_lines_in(message: str, joined: JoinedCells, numbers: Sequence[int]) -> str:
    """A message (or a fix's description) with each joined line it names written as a cell's line (`line 2 of
    cell 3`; `lines 2 and 5 of cell 3`, or `line 2 of cell 3 and line 1 of cell 4`). Naming lines already named
    in their cells changes nothing."""
    def cell_line(m: re.Match) -> str:
        if m.group(1) is not None:
            cell, line = _place(joined, numbers, int(m.group(1)))
            return f"line {line} of cell {cell}"
        places = [_place(joined, numbers, int(n)) for n in re.findall(r"\d+", m.group(2))]
        if len({cell for cell, _ in places}) == 1:
            return f"lines {_listed([str(line) for _, line in places])} of cell {places[0][0]}"
        return _listed([f"line {line} of cell {cell}" for cell, line in places])

    return _LINE_IN_MESSAGE.sub(cell_line, message)


def _listed(items: Sequence[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def syntax_error(joined: JoinedCells, numbers: Sequence[int]) -> str | None:
    """`syntax error in cell N at line L:C: ...` for the first code cell that does not parse alone (IPython
    syntax masked), or None when each one does."""
    for index, start in enumerate(joined.starts):
        text = "".join(joined.lines[start - 1: start - 1 + joined.sizes[index]])
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ast.parse(text)
        except SyntaxError as e:
            return (f"syntax error in cell {numbers[index]} at line {e.lineno or 1}:{e.offset or 1}: "
                    f"{one_line(e.msg)}")
        except (ValueError, MemoryError) as e:
            return f"cannot parse cell {numbers[index]}: {one_line(e) or type(e).__name__}"
    return None
