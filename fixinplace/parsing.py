"""Parsing a large file's text in pieces, so that the parser's peak memory follows a piece, not the file.

CPython's parser holds its whole C-level tree (and its memo) beside the Python `ast` it builds: on a 1 MB file
`ast.parse` peaks at about 240 bytes of memory per source byte, more than the analysis that follows. A text larger
than `PIECE_BYTES` is therefore cut before lines that open a top-level `def`, `class`, `async def` or decorator, and
the pieces are parsed one after another; their line numbers are shifted and their statements joined into one module,
equal (positions included) to `ast.parse` of the whole text.

A cut is sound only where the tokenizer is at rest: outside brackets, strings and line continuations. A piece that
ends anywhere else does not parse alone (an unclosed bracket or string, a trailing backslash), and a piece opening
with `def`/`class`/`@` at column 0 starts a new statement wherever the text before it is complete. So when every
piece parses, the cuts were sound; when one does not, the whole text is parsed at once, which gives the same tree
and the same error message as plain `ast.parse`.
"""

from __future__ import annotations

import ast
import re

from fixinplace.lines import LINE_ENDING

#: Texts up to this size are parsed at once; larger ones in pieces of at least this size.
PIECE_BYTES = 256 * 1024

# A line break followed by a line that starts a top-level definition.
_CUT = re.compile(r"(?:\r\n|\r|\n)(?=(?:def|class|async[ \t]+def)[ \t(]|@)")


def _cuts(source: str, piece: int) -> list[tuple[int, int]]:
    spans, start = [], 0
    while start < len(source):
        cut = _CUT.search(source, start + piece)
        end = cut.end() if cut else len(source)
        spans.append((start, end))
        start = end
    return spans


def parse_module(source: str, filename: str = "<unknown>", piece: int = PIECE_BYTES) -> ast.Module:
    """`ast.parse(source, filename)`, with the peak memory of parsing one piece of a large text at a time.

    Raises what `ast.parse` raises on the whole text (SyntaxError, ValueError, ...)."""
    if len(source) <= piece:
        return ast.parse(source, filename=filename)
    spans = _cuts(source, piece)
    if len(spans) == 1:
        return ast.parse(source, filename=filename)
    body: list[ast.stmt] = []
    lines_before = 0
    try:
        for start, end in spans:
            tree = ast.parse(source[start:end], filename=filename)
            if lines_before:
                ast.increment_lineno(tree, lines_before)
            body.extend(tree.body)
            lines_before += len(LINE_ENDING.findall(source, start, end))
    except (SyntaxError, ValueError):
        # A cut inside a string (a docstring quoting a `def` at column 0) or a real error: the whole text decides.
        body.clear()
        return ast.parse(source, filename=filename)
    return ast.Module(body=body, type_ignores=[])
