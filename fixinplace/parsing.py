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

Smaller texts are parsed whole, and their statements are remembered in the same pieces (`MEMO_CHARS` of text at
most, least recently used first out): a text that shares most of its pieces, at the same lines, with one parsed
before (an editor's text after an edit, a rewrite the fix stage checks) is assembled from them, only its new pieces
parsed. A piece is remembered only as a run of whole top-level statements; pieces that each parse alone and open at
column 0 join into the text they make (each ends at rest: no bracket, string or continuation left open).
"""

from __future__ import annotations

import ast
import re
import threading
from collections import OrderedDict

from fixinplace.lines import LINE_ENDING

#: Texts up to this size are parsed at once; larger ones in pieces of at least this size.
PIECE_BYTES = 256 * 1024

#: How much text (in characters) the pieces remembered hold at most (their trees take about 80 bytes a character).
MEMO_CHARS = 300_000

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
    """`ast.parse(source, filename)`, with the peak memory of parsing one piece of a large text at a time, and the
    pieces of a smaller one taken from those remembered when they were parsed before.

    Raises what `ast.parse` raises on the whole text (SyntaxError, ValueError, ...)."""
    if len(source) <= piece:
        return _parse_remembering(source, filename)
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


# (piece text, lines before it) -> its statements, at their lines in the text
_memo: OrderedDict[tuple[str, int], tuple[ast.stmt, ...]] = OrderedDict()
_memo_chars = 0
_memo_lock = threading.Lock()


def memo_clear() -> None:
    """Forget every remembered piece."""
    global _memo_chars
    with _memo_lock:
        _memo.clear()
        _memo_chars = 0


def _pieces(source: str) -> list[tuple[str, int]]:
    """The text cut before each line that opens a top-level definition, its decorators kept with it: (piece,
    lines before it)."""
    out, start, lines = [], 0, 0
    decorated = source.startswith("@")  # the piece is decorators so far: its definition comes with it
    for cut in _CUT.finditer(source):
        opens = source[cut.end()]
        if decorated:
            decorated = opens == "@"
            continue
        decorated = opens == "@"
        text = source[start:cut.end()]
        out.append((text, lines))
        lines += len(LINE_ENDING.findall(text))
        start = cut.end()
    out.append((source[start:], lines))
    return out


def _parse_remembering(source: str, filename: str) -> ast.Module:
    pieces = _pieces(source)
    if len(pieces) == 1:
        return ast.parse(source, filename=filename)
    with _memo_lock:
        found = [_memo.get(key) for key in pieces]
        for key, statements in zip(pieces, found):
            if statements is not None:
                _memo.move_to_end(key)
    missing = [key for key, statements in zip(pieces, found) if statements is None]
    if len(missing) * 2 > len(pieces):  # mostly new text: parsed whole, remembered in pieces
        tree = ast.parse(source, filename=filename)
        _remember(pieces, tree.body)
        return tree
    body: list[ast.stmt] = []
    try:
        for (text, lines), statements in zip(pieces, found):
            if statements is None:
                tree = ast.parse(text, filename=filename)
                if lines:
                    ast.increment_lineno(tree, lines)
                statements = tuple(tree.body)
                _store((text, lines), statements)
            body.extend(statements)
    except (SyntaxError, ValueError):
        return ast.parse(source, filename=filename)  # an unsound cut, or a real error: the whole text decides
    return ast.Module(body=body, type_ignores=[])


def _remember(pieces: list[tuple[str, int]], statements: list[ast.stmt]) -> None:
    """Remember the statements of a text parsed whole in its pieces: a cut that does not open a statement (it is
    inside a string) joins its piece to the one before."""
    firsts = {min([s.lineno, *(d.lineno for d in getattr(s, "decorator_list", ()))]): i
              for i, s in enumerate(statements)}
    runs: list[tuple[str, int, int]] = []  # (text, lines before, index of its first statement)
    for text, lines in pieces:
        at = firsts.get(lines + 1)
        if runs and at is None:
            first_text, first_lines, index = runs[-1]
            runs[-1] = (first_text + text, first_lines, index)
        else:
            runs.append((text, lines, at if at is not None else 0))
    for n, (text, lines, index) in enumerate(runs):
        end = runs[n + 1][2] if n + 1 < len(runs) else len(statements)
        _store((text, lines), tuple(statements[index:end]))


def _store(key: tuple[str, int], statements: tuple[ast.stmt, ...]) -> None:
    global _memo_chars
    if len(key[0]) > MEMO_CHARS // 4:
        return
    with _memo_lock:
        if key in _memo:
            return
        _memo[key] = statements
        _memo_chars += len(key[0])
        while _memo_chars > MEMO_CHARS:
            (text, _), _ = _memo.popitem(last=False)
            _memo_chars -= len(text)
