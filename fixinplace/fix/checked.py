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
import bisect
import difflib
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Sequence

import libcst as cst
from libcst.metadata import MetadataWrapper

from codemods._base import apply_codemod, shared_wrapper
from fixinplace.deep import deep_call
from fixinplace.diagnostics import Applicability, Diagnostic, Severity, blocking, one_line
from fixinplace.engine import SourceError, analyse_source, select_diagnostics
from fixinplace.fix.candidates import Candidate, candidates
from fixinplace.fix.units import Units, UnitRewrite, parse_for_rewriting
from fixinplace.lines import split_lines
from fixinplace.rules import RULES_BY_CODE
from fixinplace.settings import Settings


class FixStopped(Exception):
    """`fix_text` gave up because its `stop` said so (the editor's text changed)."""


@dataclass
class Version:
    """One state of the text: its hazards (every rule, errors and warnings) and, on demand, its LibCST tree."""

    source: str
    hazards: list[Diagnostic]
    _tree: Optional[cst.Module] = None
    _wrapper: Optional[MetadataWrapper] = None
    _units: Units | None | bool = None

    def units(self) -> Optional[Units]:
        """Its top-level functions and classes, to rewrite on their own (found with `ast`: LibCST parses only the
        units rewritten); None when the text does not parse."""
        if self._units is None:
            try:
                self._units = Units(self.source, ast.parse(self.source))
            except (SyntaxError, ValueError):
                self._units = False
        return self._units or None

    def tree(self) -> tuple[cst.Module, MetadataWrapper]:
        """The parsed module and a metadata wrapper over it, made once for all the candidates tried here."""
        if self._tree is None:
            self._tree = parse_for_rewriting(self.source)
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


#: Lines (both texts' differing middles together) past which `LineMap` lets difflib treat lines that repeat in more
#: than 1% of a text as junk (no anchors): below it the match is exact, above it it stays linear on repetitive code.
JUNK_FROM = 1000


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
        middle_a, middle_b = a[head:len(a) - tail], b[head:len(b) - tail]
        # difflib's matching is quadratic in lines that repeat (a file of many like functions, each fixed): past
        # JUNK_FROM lines its heuristic anchors the match on the lines that do not repeat.
        matcher = difflib.SequenceMatcher(None, middle_a, middle_b,
                                          autojunk=len(middle_a) + len(middle_b) > JUNK_FROM)
        for _, i1, i2, j1, j2 in matcher.get_opcodes():
            self.blocks.append((head + i1 + 1, head + i2 + 1, head + j1 + 1, head + j2 + 1))
        self.blocks.append((len(a) - tail + 1, len(a) + 1, len(b) - tail + 1, len(b) + 1))
        self.first_added = next((b[j1 - 1] for (i1, i2, j1, j2) in self.blocks[1:-1]
                                 if j2 > j1 and (i2 - i1 != j2 - j1 or a[i1 - 1:i2 - 1] != b[j1 - 1:j2 - 1])), "")
        self._ends = [i2 for _, i2, _, _ in self.blocks]

    @classmethod
    def of_splices(cls, old: str, rewrites: Sequence[UnitRewrite]) -> "LineMap":
        """The map of `old` with each rewritten unit's code replaced (`Units.splice`): lines between units move as
        a block, lines inside a unit are matched by difflib over that unit's lines only."""
        self = cls.__new__(cls)
        blocks: list[tuple[int, int, int, int]] = []
        old_line = new_line = 1
        for rewrite in sorted(rewrites, key=lambda r: r.unit.offset):
            first = rewrite.unit.first_line
            a, b = split_lines(rewrite.unit.code), split_lines(rewrite.code)
            blocks.append((old_line, first, new_line, new_line + first - old_line))
            new_line += first - old_line
            for _, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
                blocks.append((first + i1, first + i2, new_line + j1, new_line + j2))
            old_line, new_line = first + len(a), new_line + len(b)
        total = len(split_lines(old)) + 1
        blocks.append((old_line, total, new_line, new_line + total - old_line))
        self.blocks, self.first_added = blocks, ""
        self._ends = [i2 for _, i2, _, _ in blocks]
        return self

    def new_range(self, line: int, end_line: int) -> tuple[int, int]:
        """The new lines [start, end] that old lines [line, end_line] became (an empty block maps to the lines
        around it)."""
        starts, ends = [], []
        for k in range(bisect.bisect_left(self._ends, line), len(self.blocks)):
            i1, i2, j1, j2 = self.blocks[k]
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


def accepts(old: Version, new_source: str, new_hazards: list[Diagnostic], *targets: Diagnostic,
            lines: Optional[LineMap] = None, parsed: bool = False) -> Optional[dict[int, Diagnostic]]:
    """Whether a rewrite of `old` is kept: it parses, its targets are no longer reported, and every error or
    warning of the new text is one the old text had (at the same place, with the same code), other than the
    targets. When it is kept: which old hazard each new one continues (by `id` of the new one); else None.
    `lines` maps the old text's lines to the new one's (by default, difflib over the two texts); `parsed`: the new
    text is known to parse (its hazards come from analysing it, which parses it)."""
    if not parsed:
        try:
            ast.parse(new_source)
        except (SyntaxError, ValueError):
            return None
    lines = lines or LineMap(old.source, new_source)
    skipped = {id(t) for t in targets}
    # Each old hazard stands, in the new text, on a range of lines: indexed by (code, line), in the old order.
    near: dict[tuple[str, int], list[int]] = {}
    unmatched = [d for d in old.hazards if id(d) not in skipped]
    for i, o in enumerate(unmatched):
        lo, hi = lines.new_range(o.line, o.end_line)
        for line in range(lo, hi + 1):
            near.setdefault((o.code, line), []).append(i)
    continued: dict[int, Diagnostic] = {}
    taken: set[int] = set()
    for d in new_hazards:
        match = None
        for i in near.get((d.code, d.line), ()):
            if i not in taken and (match is None or _text(unmatched[i]) == _text(d)):
                match = i
        if match is None:
            return None
        taken.add(match)
        continued[id(d)] = unmatched[match]
    return continued


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
    stop: Optional[Callable[[], bool]] = None  # asked before each rewrite: true ends the work (`FixStopped`)
    # A rewritten text it refuses is rejected like one that fails the check (a notebook's text must split back
    # into its cells: a rewrite that moves a statement into another cell, or touches a masked magic, cannot).
    admissible: Optional[Callable[[str], bool]] = None

    def check_stop(self) -> None:
        """Raise `FixStopped` when `stop` says the work is no longer wanted."""
        if self.stop is not None and self.stop():
            raise FixStopped()

    def version(self, source: str) -> Version:
        """Analyse a text (every rule), raising `SourceError` when it does not parse."""
        self.analyses += 1
        return Version(source, blocking(analyse_source(source, self.path)))

    def wanted(self, version: Version) -> list[Diagnostic]:
        """The hazards of a version that the settings select (what `fix` fixes and reports as remaining)."""
        return select_diagnostics(version.hazards, self.settings)

    def takes(self, new_source: str) -> bool:
        """Whether `admissible` (if any) accepts a rewritten text."""
        return self.admissible is None or self.admissible(new_source)

    def allowed(self, candidate: Candidate) -> bool:
        return (self.unsafe or candidate.applicability == Applicability.SAFE) and (
            self.strategies is None or candidate.strategy in self.strategies)

    def first_passing(self, version: Version, target: Diagnostic
                      ) -> Optional[tuple[Candidate, Version, str, dict[int, Diagnostic]]]:
        """The first allowed candidate of `target` that passes on `version`, the version it makes, the first line
        it writes, and which hazard of `version` each of the new version's continues (`accepts`)."""
        for candidate in candidates(target, self.style):
            if not self.allowed(candidate):
                continue
            self.check_stop()
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
            lines = LineMap(version.source, new_source)
            passed = self.passes(version, new_source, target, lines)
            if passed is not None:
                return candidate, passed[0], lines.first_added.strip(), passed[1]
        return None

    def passes(self, version: Version, new_source: str, target: Diagnostic, lines: Optional[LineMap] = None
               ) -> Optional[tuple[Version, dict[int, Diagnostic]]]:
        """The analysed rewritten text and which hazard of `version` each of its hazards continues, when the
        rewrite of `target` passes the check (`target` gone, nothing new); None when it fails or changes nothing.
        `lines`: the map of `version`'s lines to the new text's, when the caller made it already."""
        if new_source == version.source or not self.takes(new_source):
            return None
        try:
            new = self.version(new_source)
        except SourceError:
            return None
        continued = accepts(version, new_source, new.hazards, target, lines=lines, parsed=True)
        return None if continued is None else (new, continued)

    def first_passing_by_unit(self, version: Version, target: Diagnostic
                              ) -> Optional[tuple[Candidate, Version, str, dict[int, Diagnostic]]]:
        """As `first_passing`, with each rewrite made on the top-level units it touches alone when it can be (as
        `fix_text` makes first rewrites): the same result, at the cost of rewriting one or two definitions instead
        of the module."""
        units = version.units()
        for candidate in candidates(target, self.style):
            if not self.allowed(candidate):
                continue
            self.check_stop()
            rewrites = units.rewrite_across(candidate, target, self.path) if units is not None else False
            if rewrites is False:
                # It reaches outside the units (or they cannot be rewritten alone): the whole module (the
                # candidates before this one fail there as they failed here).
                return self.first_passing(version, target)
            if rewrites is None:
                continue
            new_text = units.splice(rewrites)  # type: ignore[union-attr]
            lines = LineMap(version.source, new_text)
            passed = self.passes(version, new_text, target, lines)
            if passed is not None:
                return candidate, passed[0], lines.first_added.strip(), passed[1]
        return None

    def first_per_unit(self, version: Version, todo: list[tuple[Diagnostic, tuple]], alone: set
                       ) -> list[tuple[Diagnostic, tuple, Candidate, UnitRewrite]]:
        """For each top-level function or class whose first hazard to fix (in fixing order) is not in `alone`: that
        hazard, its first allowed candidate that rewrites something, and that rewrite made on the unit alone.
        A hazard whose candidate reaches outside its unit joins `alone` (it is fixed on the whole text)."""
        try:
            units = version.units()
        except cst.ParserSyntaxError:
            return []
        if units is None:
            return []
        firsts: dict[int, tuple[Diagnostic, tuple]] = {}
        for d, key in sorted(todo, key=lambda item: fixing_order(item[0])):
            unit = units.holding([d.line])
            if unit is not None and unit.index not in firsts:
                firsts[unit.index] = (d, key)
        picks = []
        for d, key in firsts.values():
            if key in alone:
                continue  # an earlier hazard of this unit goes first, on the whole text
            self.check_stop()
            for candidate in candidates(d, self.style):
                if not self.allowed(candidate):
                    continue
                rewrite = units.rewrite(candidate, d, self.path)
                if rewrite is False:
                    alone.add(key)
                    break
                if rewrite is not None:
                    picks.append((d, key, candidate, rewrite))
                    break
        return picks

    def batch(self, version: Version, picks: list, alone: set
              ) -> Optional[tuple[Version, list, dict[int, Diagnostic]]]:
        """The version with the largest leading group of `picks` whose rewrites, made together, pass the same
        check as one rewrite (every target gone, nothing new), that group, and which hazard of `version` each of
        the new version's continues; a pick that fails on its own joins `alone`. None when none passes."""
        units = version.units()
        assert units is not None, "picks are made on units"
        while picks:
            text = units.splice([rewrite for _, _, _, rewrite in picks])
            try:
                new = self.version(text) if self.takes(text) else None
            except SourceError:
                new = None
            continued = None if new is None else accepts(
                version, text, new.hazards, *(d for d, _, _, _ in picks),
                lines=LineMap.of_splices(version.source, [r for _, _, _, r in picks]), parsed=True)
            if continued is not None:
                return new, picks, continued
            if len(picks) == 1:
                alone.add(picks[0][1])
                return None
            picks = picks[:len(picks) // 2]
        return None


def fixing_order(d: Diagnostic) -> tuple[int, bool]:
    """By line; on one line a leaf write first: it is what raises first, and its rewrite (a copy, or a new tensor)
    also takes the line's other writes off any saved tensor."""
    rule = RULES_BY_CODE.get(d.code)
    return d.line, not (rule is not None and rule.raises_at_write)


@dataclass
class FixResult:
    """What fixing one file's text produced."""

    source: str  # the new text (== the input when nothing was fixed)
    applied: list[Diagnostic] = field(default_factory=list)  # the diagnostics fixed, each with the fix applied
    remaining: list[Diagnostic] = field(default_factory=list)  # selected errors and warnings in the new text
    unparsable: str = ""  # why no rewrite could be tried: LibCST cannot parse the text (Python can)
    analyses: int = 0  # how many texts were analysed on the way

    @property
    def changed(self) -> bool:
        """Whether any fix was applied."""
        return bool(self.applied)


def fix_text(source: str, path: str, settings: Settings, *, style: Optional[str] = None,
             strategies: Optional[Sequence[str]] = None,
             only: Optional[Callable[[Diagnostic], bool]] = None,
             stop: Optional[Callable[[], bool]] = None,
             admissible: Optional[Callable[[str], bool]] = None) -> FixResult:
    """Apply every checked fix to `source` (safe ones; unsafe ones too with `settings.unsafe_fixes`), one after
    another, to a fixpoint; with `only`, just the fixes of the hazards of `source` it accepts (`fix --verify`
    keeping the fixes that verified); with `admissible`, only rewrites whose text it accepts. Raises `SourceError`
    when `source` does not parse, and `FixStopped` when `stop()` is true before a rewrite is tried (the language
    server's fix-all of a text the editor has left)."""
    return deep_call(_fix_text, source, path, settings, style, strategies, only, stop, admissible)


def _fix_text(source: str, path: str, settings: Settings, style: Optional[str],
              strategies: Optional[Sequence[str]], only: Optional[Callable[[Diagnostic], bool]],
              stop: Optional[Callable[[], bool]], admissible: Optional[Callable[[str], bool]]) -> FixResult:
    checker = Checker(path, settings, settings.unsafe_fixes, style or settings.fix_style,
                      tuple(strategies) if strategies is not None else None, stop=stop, admissible=admissible)
    current = checker.version(source)
    # The hazard of `source` each hazard of the current text continues (by `id`, followed through every accepted
    # rewrite): fixes are reported, and `only` asked, where the hazard was in `source`, even when an earlier fix
    # of a hazard with the same code and text moved or removed its twin, or two writes share one place (two
    # in-place modules of one `Sequential`).
    initial = current.hazards
    origin: dict[int, Diagnostic] = {id(d): d for d in initial}
    applied: list[Diagnostic] = []
    failed: dict[int, int] = {}  # hazard (the id of its `source` diagnostic) -> the version (count of fixes) it
    # last failed on
    alone: set = set()  # hazards (ids of their `source` diagnostics) fixed one at a time, on the whole text

    def advance(new: Version, continued: dict[int, Diagnostic]) -> Version:
        nonlocal origin
        origin = {id(d): origin[id(continued[id(d)])] for d in new.hazards}
        return new

    while True:
        wanted = checker.wanted(current)
        todo = [(d, id(origin[id(d)])) for d in wanted]
        todo = [(d, key) for d, key in todo if failed.get(key) != len(applied)
                and (only is None or only(origin[id(d)]))]
        if not todo:
            break
        checker.check_stop()
        # Many functions with a hazard each: their first rewrites are made and checked together, one analysis of
        # the text for all of them (one analysis per hazard costs the file's size times the hazards).
        picks = checker.first_per_unit(current, todo, alone)
        done = checker.batch(current, picks, alone) if len(picks) > 1 else None
        if done is not None:
            for d, key, candidate, rewrite in done[1]:
                new_line = LineMap(rewrite.unit.code, rewrite.code).first_added.strip()
                applied.append(replace(origin[id(d)], fix=candidate.fix(new_line)))
            current = advance(done[0], done[2])
            continue
        target, key = min(todo, key=lambda item: fixing_order(item[0]))
        found = checker.first_passing_by_unit(current, target)
        if found is None:
            failed[key] = len(applied)
            continue
        candidate, new, new_line, continued = found
        applied.append(replace(origin[id(target)], fix=candidate.fix(new_line)))
        current = advance(new, continued)
    return FixResult(current.source, applied, checker.wanted(current), checker.unparsable, checker.analyses)


def offer(source: str, path: str, diagnostics: Sequence[Diagnostic], settings: Settings,
          style: Optional[str] = None, admissible: Optional[Callable[[str], bool]] = None,
          describe: Optional[Callable[[str], str]] = None) -> list[Diagnostic]:
    """`diagnostics` (of `source`) with each error's and warning's `fix` set to the fix `fixinplace fix` applies to
    it with these settings: the first candidate that passes on `source` among those `unsafe-fixes` allows; without
    `unsafe-fixes`, when no safe one passes, the first unsafe one that does (shown as unsafe, as Ruff shows fixes
    that `--unsafe-fixes` would apply); None when no candidate passes. `admissible` as for `fix_text`.

    `describe` rewrites each fix's description as its reader numbers lines: `source` joins a notebook's cells, and
    a description names lines of it (`where it runs (line 7)`) that the reader knows as a cell's
    (`fixinplace.notebook.cell_lines_in`: `line 1 of cell 4`), as the diagnostic's own message does."""
    return deep_call(_offer, source, path, diagnostics, settings, style, admissible, describe)


def _offer(source: str, path: str, diagnostics: Sequence[Diagnostic], settings: Settings,
           style: Optional[str], admissible: Optional[Callable[[str], bool]] = None,
           describe: Optional[Callable[[str], str]] = None) -> list[Diagnostic]:
    if not blocking(diagnostics):
        return list(diagnostics)
    checker = Checker(path, settings, settings.unsafe_fixes, style or settings.fix_style, admissible=admissible)
    version = checker.version(source)
    out = []
    for d in diagnostics:
        if d.severity is Severity.INFO or d.facts is None:
            out.append(d)
            continue
        target = next((h for h in version.hazards if (h.line, h.column, h.code) == (d.line, d.column, d.code)), None)
        found = None
        if target is not None:
            found = checker.first_passing_by_unit(version, target)
            if found is None and not checker.unsafe:
                found = replace(checker, unsafe=True).first_passing_by_unit(version, target)
        fix = found[0].fix(found[2]) if found is not None else None
        if fix is not None and describe is not None:
            fix = replace(fix, description=describe(fix.description))
        out.append(replace(d, fix=fix))
    return out


def apply_offered(source: str, path: str, diagnostic: Diagnostic) -> Optional[str]:
    """`source` with one offered fix applied again (an editor's quick fix, trace's diff), or None."""
    candidate = diagnostic.fix.candidate if diagnostic.fix is not None else None
    if not isinstance(candidate, Candidate) or diagnostic.facts is None:
        return None
    return deep_call(_apply_offered, source, path, diagnostic, candidate)


def _apply_offered(source: str, path: str, diagnostic: Diagnostic, candidate: Candidate) -> Optional[str]:
    tree = parse_for_rewriting(source)
    new_source = apply_codemod(candidate.codemod, tree, shared_wrapper(tree), path, diagnostic.facts,
                               **dict(candidate.anchor))
    return None if new_source is None else keep_untouched_lines(source, tree.code, new_source)
