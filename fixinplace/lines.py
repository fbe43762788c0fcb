"""Splitting source text into lines the way Python's tokenizer and the Language Server Protocol do.

Only `\\n`, `\\r\\n` and `\\r` end a line. `str.splitlines` also breaks at form feeds, `\\x1c`-`\\x1e`, `\\x85`,
U+2028 and U+2029, which may sit inside a line of code or a string: line numbers, columns and edits computed from
its lines land on the wrong line after any of them. Every place that numbers lines uses these two functions.
"""

from __future__ import annotations

import re
from functools import lru_cache

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
#: A line ending, the only ones Python and LSP know.
LINE_ENDING = re.compile(r"\r\n|\r|\n")
_BYTES_ENDING = re.compile(rb"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of a text, each with its own ending (`\\r\\n`, `\\r` or `\\n`; the last one may have none)."""
    return _LINE.findall(text)


def line_texts(text: str) -> list[str]:
    """The lines of a text without their endings (as `str.splitlines()` would give them, but breaking only where
    Python and LSP break lines)."""
    lines = LINE_ENDING.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # a final line ending ends the last line, it does not start an empty one
    return lines


@lru_cache(maxsize=8)
def shared_line_texts(text: str) -> tuple[str, ...]:
    """`line_texts(text)` as a tuple, computed once for the few texts in use (every part of a file analysed apart
    reads the lines of the same text)."""
    return tuple(line_texts(text))


@lru_cache(maxsize=8)
def shared_byte_lines(text: str) -> tuple[bytes, ...]:
    """The UTF-8 bytes of each of `shared_line_texts(text)`."""
    return tuple(line.encode("utf-8") for line in shared_line_texts(text))


def count_line_endings(data: bytes) -> int:
    """How many line endings a file's bytes hold (by the same rule)."""
    return len(_BYTES_ENDING.findall(data))
