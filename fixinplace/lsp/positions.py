"""Positions in an LSP document: how many code units of a position encoding (UTF-8, UTF-16, UTF-32) a text takes,
and which character a count of them lands on."""

from __future__ import annotations

UTF8, UTF16, UTF32 = "utf-8", "utf-16", "utf-32"  # LSP's PositionEncodingKind values


def units(text: str, encoding: str = UTF16) -> int:
    """How many code units of `encoding` (an LSP position encoding; UTF-16 when unknown) `text` takes."""
    if encoding == UTF32:
        return len(text)
    if text.isascii():
        return len(text)
    # surrogatepass: a lone surrogate (JSON can carry one) still counts, as the editor counts it
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def utf16_len(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    return units(text, UTF16)


def _char_units(char: str, encoding: str) -> int:
    if encoding == UTF32:
        return 1
    code = ord(char)
    if encoding == UTF8:
        return 1 if code < 0x80 else 2 if code < 0x800 else 3 if code < 0x10000 else 4
    return 2 if code > 0xFFFF else 1


def column_at(text: str, count: int, encoding: str = UTF16) -> int:
    """The 0-based character index in `text` at `count` code units of `encoding` (a count inside a character
    is taken to its end; past the text, its length)."""
    if encoding == UTF32 or text.isascii():
        return min(max(count, 0), len(text))
    used, column = 0, 0
    while column < len(text) and used < count:
        used += _char_units(text[column], encoding)
        column += 1
    return column
