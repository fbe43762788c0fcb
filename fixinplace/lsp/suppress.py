"""The "Ignore FIP101 for this line" action (like Ruff's noqa action): the comment `fixinplace check --add-noqa`
writes (`fixinplace.noqa`), for one diagnostic: `# fixinplace: ignore[CODE]` at the end of the first line of the
diagnostic whose end is neither inside a string nor after a `\\` continuation, after any comment already there; on
a line that has a `# fixinplace: ignore[...]` comment, the code is added to its list (the codes sorted).

`fixinplace.noqa.IgnoreComments` reads the text once (one tokenize pass) for all the diagnostics of a request;
`verified` checks that the checker's own parser (`parse_suppressions`) reads the comments, once for all of them.
"""

from __future__ import annotations

from typing import Sequence

from fixinplace.diagnostics import Diagnostic
from fixinplace.engine import parse_suppressions
from fixinplace.noqa import IgnoreComments

def ignore_title(code: str) -> str:
    """The action's title."""
    return f"Ignore {code} for this line"


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
