"""Rewrites kept only when the analysis confirms them: each candidate is applied on its own and the text analysed
again; it is kept only when the write it targets is no longer reported, no other error or warning appears, and
the text parses.

    offer(text, path, diagnostics, settings)   each diagnostic with the first candidate that passes on `text`
    fix_text(text, path, settings)             every passing fix, applied one after another to a fixpoint

`fix_text` takes the diagnostics in source order and applies the first passing candidate of each one to the text
as it stands (so a fix that already made a later write safe leaves nothing to do there, and fixes that interact
are checked together); a diagnostic whose candidates all fail is tried again only once the text has changed
since. Each kept fix removes at least one hazard and adds none, so the loop ends, and running it on its own
result changes nothing.
"""

from __future__ import annotations

import ast
import difflib
from dataclasses import dataclass, field, replace
from typing import Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper

from codemods._base import apply_codemod, shared_wrapper
from fixinplace.deep import deep_call
from fixinplace.diagnostics import Diagnostic, Severity, one_line
from fixinplace.engine import SourceError, analyse_source, select_diagnostics
from fixinplace.fix.candidates import Candidate, candidates
from fixinplace.lines import split_lines
from fixinplace.settings import Settings


def _blocking(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity in (Severity.ERROR, Severity.WARNING)]


@dataclass
class Version:
    """One state of the text: its hazards (every rule, errors and warnings) and, on demand, its LibCST tree."""

    source: str
    hazards: list[Diagnostic]
    _tree: Optional[cst.Module] = None
    _wrapper: Optional[MetadataWrapper] = None

    def tree(self) -> tuple[cst.Module, MetadataWrapper]:
        """The parsed module and a metadata wrapper over it, made once for all the candidates tried here."""
        if self._tree is None:
            self._tree = cst.parse_module(self.source)
            self._wrapper = shared_wrapper(self._tree)
        return self._tree, self._wrapper  # type: ignore[return-value]


def keep_untouched_lines(source: str, round_trip: str, rewritten: str) -> str:
    """`rewritten` (LibCST's code for a rewrite of `source`) with every line the rewrite did not touch as `source`
    has it.

    LibCST does not reproduce every text it parses: it drops a form feed before a statement (`\\f` opening a line
    of old page-broken code, or inside an indentation). Its code is then `round_trip`, the same program on the same
    lines without those characters; the lines the rewrite left alone are taken back from `source`.
    """
    if round_trip == source:
        return rewritten
    old, base, new = split_lines(source), split_lines(round_trip), split_lines(rewritten)
    if len(old) != len(base):
        return rewritten
    out: list[str] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, base, new, autojunk=False).get_opcodes():
        out.extend(old[i1:i2] if tag == "equal" else new[j1:j2])
    return "".join(out)


class LineMap:
    """Which lines of the new text stand where each line of the old text stood (difflib over the lines the two
    texts do not share at their start and end)."""

    def __init__(self, old: str, new: str) -> None:
        a, b = split_lines(old), split_lines(new)
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[len(a) - 1 - tail] == b[len(b) - 1 - tail]:
            tail += 1
        self.blocks: list[tuple[int, int, int, int]] = []  # (old start, old end, new start, new end), 1-based, end excl
        self.blocks.append((1, head + 1, 1, head + 1))
        matcher = difflib.SequenceMatcher(None, a[head:len(a) - tail], b[head:len(b) - tail], autojunk=False)
        for _, i1, i2, j1, j2 in matcher.get_opcodes():
            self.blocks.append((head + i1 + 1, head + i2 + 1, head + j1 + 1, head + j2 + 1))
        self.blocks.append((len(a) - tail + 1, len(a) + 1, len(b) - tail + 1, len(b) + 1))
        self.first_added = next((b[j1 - 1] for (i1, i2, j1, j2) in self.blocks[1:-1]
                                 if j2 > j1 and (i2 - i1 != j2 - j1 or a[i1 - 1:i2 - 1] != b[j1 - 1:j2 - 1])), "")

    def new_range(self, line: int, end_line: int) -> tuple[int, int]:
        """The new lines [start, end] that old lines [line, end_line] became (an empty block maps to the lines
        around it)."""
        starts, ends = [], []
        for i1, i2, j1, j2 in self.blocks:
            if i2 <= line and not (i1 == i2 == line):
                continue
            if i1 > end_line:
                break
            if i2 - i1 == j2 - j1:  # equal lengths: line by line
                lo, hi = max(line, i1), min(end_line, i2 - 1)
                if lo <= hi:
                    starts.append(j1 + lo - i1)
                    ends.append(j1 + hi - i1)
                    continue
            starts.append(j1)
            ends.append(max(j1, j2 - 1))
        if not starts:
            return line, end_line
        return min(starts), max(ends)


def accepts(old: Version, new_source: str, new_hazards: list[Diagnostic], target: Diagnostic) -> bool:
    """Whether a rewrite of `old` is kept: it parses, its target is no longer reported, and every error or warning
    of the new text is one the old text had (at the same place, with the same code), other than the target."""
    try:
        ast.parse(new_source)
    except (SyntaxError, ValueError):
        return False
    lines = LineMap(old.source, new_source)
    unmatched = [d for d in old.hazards if d is not target]
    for d in new_hazards:
        match = None
        for o in unmatched:
            if o.code != d.code:
                continue
            lo, hi = lines.new_range(o.line, o.end_line)
            if lo <= d.line <= hi:
                if match is None or _text(o) == _text(d):
                    match = o
        if match is None:
            return False
        unmatched.remove(match)
    return True


def _text(d: Diagnostic) -> str:
    return d.facts.text if d.facts is not None else d.message


@dataclass
class Checker:
    """Tries candidates on versions of one file's text."""

    path: str
    settings: Settings
    unsafe: bool
    style: str
    strategies: Optional[tuple[str, ...]] = None  # only these codemods (a stand-alone codemod run)
    analyses: int = 0
    unparsable: str = ""  # why LibCST could not parse the text, when it could not

    def version(self, source: str) -> Version:
        """Analyse a text (every rule), raising `SourceError` when it does not parse."""
        self.analyses += 1
        return Version(source, _blocking(analyse_source(source, self.path)))

    def wanted(self, version: Version) -> list[Diagnostic]:
        """The hazards of a version that the settings select (what `fix` fixes and reports as remaining)."""
        return select_diagnostics(version.hazards, self.settings)

    def allowed(self, candidate: Candidate) -> bool:
        return (self.unsafe or candidate.applicability == "safe") and (
            self.strategies is None or candidate.strategy in self.strategies)

    def first_passing(self, version: Version, target: Diagnostic) -> Optional[tuple[Candidate, Version, str]]:
        """The first allowed candidate of `target` that passes on `version`, the version it makes, and the first
        line it writes."""
        for candidate in candidates(target, self.style):
            if not self.allowed(candidate):
                continue
            try:
                tree, wrapper = version.tree()
            except cst.ParserSyntaxError as e:
                # Code Python compiles but LibCST's parser rejects (a form feed in some indentations).
                self.unparsable = one_line(e) or type(e).__name__
                return None
            new_source = apply_codemod(candidate.codemod, tree, wrapper, self.path, target.facts,
                                       **dict(candidate.anchor))
            if new_source is None:
                continue
            new_source = keep_untouched_lines(version.source, tree.code, new_source)
            if new_source == version.source:
                continue
            try:
                new = self.version(new_source)
            except SourceError:
                continue
            if accepts(version, new_source, new.hazards, target):
                return candidate, new, LineMap(version.source, new_source).first_added.strip()
        return None


@dataclass
class FixResult:
    """What fixing one file's text produced."""

    source: str  # the new text (== the input when nothing was fixed)
    applied: list[Diagnostic] = field(default_factory=list)  # the diagnostics fixed, each with the fix applied
    remaining: list[Diagnostic] = field(default_factory=list)  # selected errors and warnings in the new text
    unparsable: str = ""  # why no rewrite could be tried: LibCST cannot parse the text (Python can)

    @property
    def changed(self) -> bool:
        """Whether any fix was applied."""
        return bool(self.applied)


def _keys(diagnostics: Sequence[Diagnostic]) -> list[tuple[str, str, int]]:
    """What identifies each hazard across versions of the text (positions move when lines are inserted)."""
    seen: dict[tuple[str, str], int] = {}
    keys = []
    for d in diagnostics:
        base = (d.code, _text(d))
        seen[base] = seen.get(base, 0) + 1
        keys.append((*base, seen[base]))
    return keys


def fix_text(source: str, path: str, settings: Settings, *, style: Optional[str] = None,
             strategies: Optional[Sequence[str]] = None,
             only: Optional[Callable[[Diagnostic], bool]] = None) -> FixResult:
    """Apply every checked fix to `source` (safe ones; unsafe ones too with `settings.unsafe_fixes`), one after
    another, to a fixpoint; with `only`, just the fixes of the hazards of `source` it accepts (`fix --verify`
    keeping the fixes that verified). Raises `SourceError` when `source` does not parse."""
    return deep_call(_fix_text, source, path, settings, style, strategies, only)


def _fix_text(source: str, path: str, settings: Settings, style: Optional[str],
              strategies: Optional[Sequence[str]], only: Optional[Callable[[Diagnostic], bool]]) -> FixResult:
    checker = Checker(path, settings, settings.unsafe_fixes, style or settings.fix_style,
                      tuple(strategies) if strategies is not None else None)
    current = checker.version(source)
    initial = checker.wanted(current)
    originals = dict(zip(_keys(initial), initial))  # applied fixes are reported where the hazard was in `source`
    applied: list[Diagnostic] = []
    failed: dict[tuple[str, str, int], int] = {}  # hazard -> the version (count of fixes) it last failed on
    while True:
        wanted = checker.wanted(current)
        todo = [(d, key) for d, key in zip(wanted, _keys(wanted)) if failed.get(key) != len(applied)
                and (only is None or (key in originals and only(originals[key])))]
        if not todo:
            break
        # By line; on one line a leaf write first: it is what raises first, and its rewrite (a copy, or a new
        # tensor) also takes the line's other writes off any saved tensor.
        target, key = min(todo, key=lambda item: (item[0].line, item[0].code != "FIP102"))
        found = checker.first_passing(current, target)
        if found is None:
            failed[key] = len(applied)
            continue
        candidate, current, new_line = found
        applied.append(replace(originals.get(key, target), fix=candidate.fix(new_line)))
    return FixResult(current.source, applied, checker.wanted(current), checker.unparsable)


def offer(source: str, path: str, diagnostics: Sequence[Diagnostic], settings: Settings,
          style: Optional[str] = None) -> list[Diagnostic]:
    """`diagnostics` (of `source`) with each error's and warning's `fix` set to the fix `fixinplace fix` applies to
    it with these settings: the first candidate that passes on `source` among those `unsafe-fixes` allows; without
    `unsafe-fixes`, when no safe one passes, the first unsafe one that does (shown as unsafe, as Ruff shows fixes
    that `--unsafe-fixes` would apply); None when no candidate passes."""
    return deep_call(_offer, source, path, diagnostics, settings, style)


def _offer(source: str, path: str, diagnostics: Sequence[Diagnostic], settings: Settings,
           style: Optional[str]) -> list[Diagnostic]:
    if not _blocking(diagnostics):
        return list(diagnostics)
    checker = Checker(path, settings, settings.unsafe_fixes, style or settings.fix_style)
    version = checker.version(source)
    out = []
    for d in diagnostics:
        if d.severity is Severity.INFO or d.facts is None:
            out.append(d)
            continue
        target = next((h for h in version.hazards if (h.line, h.column, h.code) == (d.line, d.column, d.code)), None)
        found = None
        if target is not None:
            found = checker.first_passing(version, target)
            if found is None and not checker.unsafe:
                found = replace(checker, unsafe=True).first_passing(version, target)
        out.append(replace(d, fix=found[0].fix(found[2]) if found is not None else None))
    return out


def apply_offered(source: str, path: str, diagnostic: Diagnostic) -> Optional[str]:
    """`source` with one offered fix applied again (an editor's quick fix, trace's diff), or None."""
    candidate = diagnostic.fix.candidate if diagnostic.fix is not None else None
    if not isinstance(candidate, Candidate) or diagnostic.facts is None:
        return None
    tree = cst.parse_module(source)
    new_source = apply_codemod(candidate.codemod, tree, shared_wrapper(tree), path, diagnostic.facts,
                               **dict(candidate.anchor))
    return None if new_source is None else keep_untouched_lines(source, tree.code, new_source)
