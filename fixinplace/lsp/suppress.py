"""The "Ignore FIP101 for this line" action (like Ruff's noqa action): the comment `fixinplace check --add-noqa`
writes (`fixinplace.noqa`), for one diagnostic: `# fixinplace: ignore[CODE]` at the end of the first line of the
diagnostic whose end is neither inside a string nor after a `\\` continuation, after any comment already there; on
a line that has a `# fixinplace: ignore[...]` comment, the code is added to its list (the codes sorted).

`IgnoreComments` reads the text once (one tokenize pass) for all the diagnostics of a request; `verified` checks that
the checker's own parser (`parse_suppressions`) reads the comments, once for all of them.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Sequence

from fixinplace.diagnostics import Diagnostic
from fixinplace.engine import parse_suppressions
from fixinplace.lines import split_lines

# The tool's directive with a code list (the form `fixinplace.engine.parse_suppressions` reads).
_DIRECTIVE = re.compile(r"#\s*fixinplace\s*:\s*ignore\[([^\]]*)\]", re.IGNORECASE)


def ignore_title(code: str) -> str:
    """The action's title."""
    return f"Ignore {code} for this line"


class IgnoreComments:
    """Where a suppression comment can go in one text, and the line each diagnostic's comment makes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.lines = split_lines(text)
        self.comment_at: dict[int, int] = {}  # line -> column of its comment
        self.inside: set[int] = set()  # lines whose end is inside a string (or another multi-line token)
        try:
            for tok in tokenize.generate_tokens(io.StringIO(text).readline):
                if tok.type == tokenize.COMMENT:
                    self.comment_at[tok.start[0]] = tok.start[1]
                elif tok.start[0] != tok.end[0] and tok.type not in (tokenize.NEWLINE, tokenize.NL):
                    self.inside.update(range(tok.start[0], tok.end[0]))
        except (tokenize.TokenError, SyntaxError):
            pass

    def line_for(self, d: Diagnostic) -> tuple[int, str] | None:
        """The 1-based line that takes `d`'s comment and that line's new text; None when no line of `d` can."""
        for line in range(d.line, max(d.line, d.end_line) + 1):
            if line > len(self.lines) or line in self.inside:
                continue
            old = self.lines[line - 1]
            body = old.rstrip("\r\n")
            if not body.strip() or body.rstrip().endswith("\\"):
                continue
            return line, self.with_codes(line, {d.code})
        return None

    def with_codes(self, line: int, codes: set[str]) -> str:
        """Line `line` (1-based) with `codes` added to its `# fixinplace: ignore[...]` comment, or a new comment."""
        old = self.lines[line - 1]
        body = old.rstrip("\r\n")
        ending = old[len(body):]
        match = None
        if line in self.comment_at:
            for match in _DIRECTIVE.finditer(body, self.comment_at[line]):
                pass  # the last one, as `--add-noqa` takes it
        if match is not None:
            present = {c.strip().upper() for c in re.split(r"[,\s]+", match.group(1)) if c.strip()}
            return f"{body[:match.start(1)]}{', '.join(sorted(present | codes))}{body[match.end(1):]}{ending}"
        return f"{body.rstrip()}  # fixinplace: ignore[{', '.join(sorted(codes))}]{ending}"


def verified(diagnostics: Sequence[Diagnostic], comments: IgnoreComments) -> set[int]:
    """The indexes of `diagnostics` whose comment (`comments.line_for`) the checker honours. Checked once with every comment in place (each line with all the codes its diagnostics add), each on
    its own only when that fails."""
    placed = {i: found for i, d in enumerate(diagnostics) if (found := comments.line_for(d)) is not None}
    if not placed:
        return set()
    codes: dict[int, set[str]] = {}
    for i, (line, _) in placed.items():
        codes.setdefault(line, set()).add(diagnostics[i].code)
    lines = list(comments.lines)
    for line, line_codes in codes.items():
        lines[line - 1] = comments.with_codes(line, line_codes)
    if _honoured("".join(lines), [(line, diagnostics[i].code) for i, (line, _) in placed.items()]):
        return set(placed)
    return {i for i, (line, new_line) in placed.items()
            if _honoured("".join(comments.lines[: line - 1]) + new_line + "".join(comments.lines[line:]),
                         [(line, diagnostics[i].code)])}


def _honoured(text: str, wanted: list[tuple[int, str]]) -> bool:
    """Whether the checker reads a suppression of each (line, code) in `text`. (The text still parses: a comment
    at the end of a line that ends neither inside a string nor after a `\\` changes no token before it.)"""
    suppressions = parse_suppressions(text)
    for line, code in wanted:
        if line not in suppressions:
            return False
        found = suppressions[line]
        if found is not None and not any(code.startswith(c) for c in found):
            return False
    return True
