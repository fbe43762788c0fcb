"""Fixes across files: a hazard reported at a call, whose write is in another file of the same `fix` run, is
repaired at that write, in that file.

    fix_across_files(outcomes, settings)   after each file of a `fix` run was fixed on its own: every call's
                                           hazard whose writes lie in files of the run, errors first
    offer_across(text, path, d, settings)  the same repair of one diagnostic, with the files as on disk
                                           (`check`'s `[*]`, the editor's quick fix)
    withdraw_dropped(outcomes)             after `fix --verify` dropped patches: the calls' fixes made in them

The write's facts come with the call's diagnostic (`fixinplace.facts.RemoteWrite`: the write as the call's context
shows it, in the other file's lines), so the planner and the codemods work on that file as on any other. A rewrite
is kept only when, with it in place (`fixinplace.analysis.project.overlay`), the call's hazard is gone, the rewritten
file reports nothing new on its own, and no other file of the run that loads it reports anything new: a rewrite
that would break another caller of the same function is rejected. The fix is recorded on the calling file's
diagnostic (what the user was shown) and the patch on the written file's outcome.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, field, replace
from typing import Optional

import libcst as cst

from codemods._base import apply_codemod, shared_wrapper
from fixinplace.analysis.project import dependency_files, overlay
from fixinplace.diagnostics import Applicability, Diagnostic, Fix, Severity, blocking
from fixinplace.engine import SourceError, analyse_source, shared_analyses
from fixinplace.facts import RemoteWrite
from fixinplace.fix.candidates import remote_candidates
from fixinplace.fix.checked import LineMap, Version, accepts, keep_untouched_lines
from fixinplace.fix.files import FileOutcome, PatchError, SourceFile, make_patch, read_file
from fixinplace.fix.notebooks import read_notebook
from fixinplace.fix.units import parse_for_rewriting
from fixinplace.notebook import parse_notebook, to_cells
from fixinplace.reading import is_notebook
from fixinplace.settings import Settings


@dataclass
class _File:
    """One Python file of the run: its outcome, what it reads on disk, and its text with the fixes so far."""

    outcome: FileOutcome
    source: Optional[SourceFile]  # None for an editor's or a check's text (never patched)
    text: str
    imports: Optional[tuple[str, frozenset]] = None  # (text, the real paths of the project files it may load)


def fix_across_files(outcomes: list[FileOutcome], settings: Settings, cwd: Optional[str] = None) -> int:
    """Repair, where they are written, the hazards that calls of one file of the run report in another file of it
    (each outcome's `remaining`), errors first; update the outcomes (the written file's patch, the calling file's
    `applied` and `remaining`). Returns how many were repaired."""
    files: dict[str, _File] = {}
    notebooks: list[_File] = []  # callers only: a notebook is never imported, so never written from here
    if not any(_remotes(d) for o in outcomes if o.error is None for d in o.remaining):
        return 0
    for o in outcomes:
        if o.error is not None:
            continue
        if is_notebook(o.path):
            if any(_remotes(d) for d in o.remaining):
                notebooks += _notebook_caller(o, settings)
            continue
        try:
            source = o.patch.source if o.patch is not None else read_file(o.path, settings.max_file_size)
        except (PatchError, OSError):
            continue
        text = o.patch.new_text if o.patch is not None and o.patch.changed else source.text
        files[os.path.realpath(o.path)] = _File(o, source, text)
    repaired = 0
    with shared_analyses():
        targets = [(f, d, _placed(f, d)) for f in [*files.values(), *notebooks] for d in f.outcome.remaining
                   if any(os.path.realpath(r.path) in files for r in _remotes(d))]
        targets.sort(key=lambda item: (item[1].severity is not Severity.ERROR, item[0].outcome.path, item[1].line))
        for caller, d, at in targets:
            if at is None:
                continue
            planned = _plan(caller, at, files, settings)
            if planned is not None and _commit(caller, d, planned, files, cwd):
                repaired += 1
            elif planned is None and not settings.unsafe_fixes:
                # What `--unsafe-fixes` would do, for the summary (`FixReport.unsafe_only`): planned, not made.
                planned = _plan(caller, at, files, replace(settings, unsafe_fixes=True))
                if planned is not None:
                    caller.outcome.remaining = [replace(r, fix=planned[0]) if r is d else r
                                                for r in caller.outcome.remaining]
    return repaired


@dataclass
class _NotebookCaller(_File):
    """A notebook calling into files of the run: its code cells joined (what is analysed), and which hazard of the
    joined text each of its remaining diagnostics (placed in cells) is."""

    cells: dict = field(default_factory=dict)  # id of a remaining diagnostic -> that hazard of the joined text


def _notebook_caller(outcome: FileOutcome, settings: Settings) -> list[_File]:
    """The notebook of an outcome as a caller (with its fixes in place), or nothing when it cannot be read."""
    try:
        source, notebook = read_notebook(outcome.path, settings.max_file_size)
        if outcome.patch is not None and outcome.patch.changed:
            notebook = parse_notebook(outcome.patch.new_text)
    except (SourceError, PatchError, OSError, ValueError):
        return []
    joined = notebook.join()
    numbers = notebook.code_cell_numbers()
    caller = _NotebookCaller(outcome, source, joined.text)
    hazards = _hazards(joined.text, outcome.path, {}) or []
    placed = {(d.cell, d.line, d.column, d.code): h for h, d in zip(hazards, to_cells(hazards, joined, numbers))}
    for d in outcome.remaining:
        found = placed.get((d.cell, d.line, d.column, d.code))
        if found is not None:
            caller.cells[id(d)] = found
    return [caller]


def outside_writes(outcomes: list[FileOutcome]) -> list[tuple[Diagnostic, list[str]]]:
    """The remaining hazards reported at calls whose writes lie in files that are none of the outcomes' (where
    `fix_across_files` repairs them only when those files are in the run), each with those files."""
    own = {os.path.realpath(o.path) for o in outcomes}
    out = []
    for o in outcomes:
        for d in o.remaining if o.error is None else ():
            paths = sorted({r.path for r in _remotes(d) if os.path.realpath(r.path) not in own})
            if paths:
                out.append((d, paths))
    return out


def remote_files(outcomes: list[FileOutcome]) -> list[str]:
    """The files, none of the outcomes' own, in which the calls of their remaining hazards write (what
    `fix_across_files` would repair there if they were files of the run), in the order first met."""
    found: dict[str, str] = {}
    for _, paths in outside_writes(outcomes):
        for path in paths:
            found.setdefault(os.path.realpath(path), path)
    return list(found.values())


def _placed(caller: _File, d: Diagnostic) -> Optional[Diagnostic]:
    """A remaining diagnostic as a hazard of the caller's analysed text (a notebook's joined cells)."""
    return caller.cells.get(id(d)) if isinstance(caller, _NotebookCaller) else d


def withdraw_dropped(outcomes: list[FileOutcome]) -> None:
    """After patches were dropped (`fix --verify` keeps only verified files): a call's fix made in a file whose
    patch is gone is no longer applied; the calling file's hazards are counted again (`settle`)."""
    patched = {os.path.realpath(o.path) for o in outcomes if o.patch is not None and o.patch.changed}
    for o in outcomes:
        gone = [d for d in o.applied if id(d) in o.elsewhere and not o.elsewhere[id(d)] <= patched]
        if gone:
            o.applied = [d for d in o.applied if d not in gone]
            o.remaining = blocking(gone) + o.remaining
            o.exact = False


def offer_across(text: str, path: str, diagnostic: Diagnostic, settings: Settings, or_unsafe: bool = True
                 ) -> Optional[tuple[Fix, dict[str, tuple[str, str]]]]:
    """The fix `fix --apply` makes of a call's diagnostic (of `text`) when the files of the writes it runs are fixed
    with the calling file, as they are on disk (`check`'s `[*]`, the editor's quick fix): the fix, and each file
    it rewrites with its (old, new) text; None when none passes. Without unsafe fixes, when no safe one passes,
    the unsafe one `--unsafe-fixes` would make (as `offer` does), unless `or_unsafe` is false."""
    if not _remotes(diagnostic):
        return None
    caller = _File(FileOutcome(path, remaining=[diagnostic]), None, text)
    files = {os.path.realpath(path): caller}
    for r in _remotes(diagnostic):
        real = os.path.realpath(r.path)
        if real in files or is_notebook(r.path):
            continue
        try:
            source = read_file(r.path, settings.max_file_size)
        except (PatchError, OSError):
            continue
        files[real] = _File(FileOutcome(r.path), source, source.text)
    with shared_analyses():
        planned = _plan(caller, diagnostic, files, settings)
        if planned is None and or_unsafe and not settings.unsafe_fixes:
            planned = _plan(caller, diagnostic, files, replace(settings, unsafe_fixes=True))
    if planned is None:
        return None
    fix, texts = planned
    rewritten = {files[p].outcome.path: (files[p].text, new) for p, new in texts.items()}
    return replace(fix, made_in=tuple(rewritten)), rewritten


def _remotes(d: Diagnostic) -> tuple[RemoteWrite, ...]:
    """The writes in other files an error's or warning's call runs (none for other diagnostics)."""
    return d.facts.remotes if d.facts is not None and d.severity is not Severity.INFO else ()


def _texts(files: dict[str, _File]) -> dict[str, str]:
    """The texts the analyses must read instead of the disk: the files of the run that differ from it (their
    fixes so far), and texts that are not on disk (an editor's)."""
    return {path: f.text for path, f in files.items() if f.source is None or f.text != f.source.text}


def _hazards(text: str, path: str, texts: dict[str, str]) -> Optional[list[Diagnostic]]:
    """Every error and warning of a file's text with the run's files as `texts` has them (None: it does not parse)."""
    try:
        with overlay(texts):
            return blocking(analyse_source(text, path))
    except SourceError:
        return None


#: Writes one call's hazard may need repaired (each one in its file): a guard, a call runs few.
MAX_WRITES = 8


@dataclass
class _Step:
    """One write repaired: the rewrite kept, and what it says."""

    written: _File
    new_text: str
    fix: Fix


def _plan(caller: _File, reported: Diagnostic, files: dict[str, _File], settings: Settings
          ) -> Optional[tuple[Fix, dict[str, str]]]:
    """The repair of every write one call's hazard runs in files of the run, one after another, each rewrite
    checked (see the module's text): its fix and the new text of each file it rewrites; None unless the call
    reports the hazard no more (all of the writes or none). The files are left as they were."""
    start = {path: f.text for path, f in files.items()}
    steps: list[_Step] = []
    try:
        for _ in range(MAX_WRITES + 1):
            texts = _texts(files)
            before = _hazards(caller.text, caller.outcome.path, texts)
            target = None if before is None else next(
                (h for h in before if (h.line, h.column, h.code) == (reported.line, reported.column, reported.code)
                 and _remotes(h)), None)
            if target is None or len(steps) == MAX_WRITES:
                break
            assert before is not None
            remote = next((r for r in _remotes(target) if os.path.realpath(r.path) in files), None)
            step = None if remote is None else _repair_write(caller, target, before, remote, files, settings,
                                                             texts)
            if step is None:
                break
            steps.append(step)
            step.written.text = step.new_text
        changed = {path: f.text for path, f in files.items() if f.text != start[path]}
    finally:
        for path, f in files.items():
            f.text = start[path]
    if not steps or target is not None:
        return None
    return _joined(steps), changed


def _commit(caller: _File, reported: Diagnostic, planned: tuple[Fix, dict[str, str]], files: dict[str, _File],
            cwd: Optional[str]) -> bool:
    """Put a planned repair in the outcomes: each rewritten file's patch, the call's diagnostic applied."""
    fix, texts = planned
    try:
        patches = {path: make_patch(files[path].source, text, cwd) for path, text in texts.items()}
    except PatchError:  # pragma: no cover - each text was parsed and checked
        return False
    for path, patch in patches.items():
        f = files[path]
        f.text, f.outcome.patch, f.outcome.exact = texts[path], patch, False
    fixed = replace(reported, fix=replace(fix, made_in=tuple(files[path].outcome.path for path in texts)))
    caller.outcome.applied.append(fixed)
    caller.outcome.elsewhere[id(fixed)] = set(texts)
    caller.outcome.remaining = [d for d in caller.outcome.remaining if d is not reported]
    caller.outcome.exact = False
    return True


def _joined(steps: list[_Step]) -> Fix:
    """The fix of a call's hazard: every write's rewrite, unsafe when one of them is."""
    unsafe = any(step.fix.applicability != Applicability.SAFE for step in steps)
    return replace(steps[0].fix, applicability=Applicability.of(not unsafe),
                   description="; ".join(step.fix.description for step in steps))


def _repair_write(caller: _File, target: Diagnostic, before: list[Diagnostic], remote: RemoteWrite,
                  files: dict[str, _File], settings: Settings, texts: dict[str, str]) -> Optional[_Step]:
    """The first candidate at one write of `target` that passes: the written file reports nothing new, nor does
    any file that loads it, and the call reports the hazard no more or only for its other writes."""
    written_path = os.path.realpath(remote.path)
    written = files[written_path]
    own_before = _hazards(written.text, written.outcome.path, texts)
    if own_before is None:
        return None
    at_write = replace(target, path=written.outcome.path, line=remote.span.line, column=remote.span.column,
                       end_line=remote.span.end_line, end_column=remote.span.end_column, facts=remote.facts)
    readers = [f for path, f in files.items() if path != written_path and _loads(f, written_path)]
    if caller not in readers:
        readers.append(caller)  # a notebook: not among the files of the run that can be rewritten
    try:
        tree = parse_for_rewriting(written.text)
    except cst.ParserSyntaxError:
        return None
    wrapper = shared_wrapper(tree)
    for candidate in remote_candidates(at_write, settings.fix_style):
        if candidate.applicability != Applicability.SAFE and not settings.unsafe_fixes:
            continue
        new_text = apply_codemod(candidate.codemod, tree, wrapper, written.outcome.path, remote.facts,
                                 **dict(candidate.anchor))
        if new_text is None:
            continue
        new_text = keep_untouched_lines(written.text, tree.code, new_text)
        if new_text == written.text:
            continue
        lines = LineMap(written.text, new_text)
        if _passes(written, new_text, own_before, readers, caller, (target, before, remote), texts, lines):
            fix = candidate.fix(lines.first_added.strip())
            return _Step(written, new_text, replace(
                fix, description=f"in {remote.display} (line {remote.span.line}): {fix.description}"))
    return None


def _loads(f: _File, written_path: str) -> bool:
    """Whether the analysis of a file may load the written one (its imports scanned once per text)."""
    if f.imports is None or f.imports[0] is not f.text:
        f.imports = (f.text, frozenset(os.path.realpath(p) for p in dependency_files(f.outcome.path, f.text)))
    return written_path in f.imports[1]


def _passes(written: _File, new_text: str, own_before: list[Diagnostic], readers: list[_File], caller: _File,
            reported: tuple, texts: dict[str, str], lines: LineMap) -> bool:
    """Whether a rewrite of the written file passes: it parses, reports nothing new itself, and with it every file
    that loads it reports nothing new; the call (`reported`: its hazard, the calling file's hazards, the write
    repaired) reports it no more, or only for its other writes."""
    try:
        ast.parse(new_text)
    except (SyntaxError, ValueError):
        return False
    written_path = os.path.realpath(written.outcome.path)
    new_texts = {**texts, written_path: new_text}
    own_after = _hazards(new_text, written.outcome.path, new_texts)
    target, caller_before, remote = reported
    if own_after is None:
        return False
    # The call's other writes in this file, which its hazard already stands for, may now show in the file alone
    # (`x += ...` after a first write made out of place: `x` is now a tensor the file itself made).
    pending = {line for path, line in _other_writes(target, remote, written_path, lines) if path == written_path}
    own_after = [h for h in own_after if not (h.code == target.code and h.line in pending)]
    if accepts(Version(written.text, own_before), new_text, own_after, lines=lines, parsed=True) is None:
        return False
    for reader in readers:
        before = caller_before if reader is caller else _hazards(reader.text, reader.outcome.path, texts)
        after = _hazards(reader.text, reader.outcome.path, new_texts)
        if before is None or after is None:
            return False
        targets: tuple = ()
        if reader is caller:
            targets = (target,)
            still = next((h for h in after if (h.line, h.column, h.code) == (target.line, target.column, target.code)),
                         None)
            if still is not None:
                if not _continues(target, still, remote, written_path, lines):
                    return False
                after = [h for h in after if h is not still]
        if accepts(Version(reader.text, before), reader.text, after, *targets, parsed=True) is None:
            return False
    return True


def _other_writes(target: Diagnostic, repaired: RemoteWrite, written_path: str, lines: LineMap
                  ) -> set[tuple[str, int]]:
    """(real path, line) of the writes the call's hazard stands for other than the one repaired, after the
    rewrite (lines of the rewritten file mapped through it)."""
    found: set[tuple[str, int]] = set()
    for r in _remotes(target):
        if r is repaired:
            continue
        path = os.path.realpath(r.path)
        if path == written_path:
            lo, hi = lines.new_range(r.span.line, r.span.end_line)
            found.update((path, line) for line in range(lo, hi + 1))
        else:
            found.add((path, r.span.line))
    return found


def _continues(target: Diagnostic, still: Diagnostic, repaired: RemoteWrite, written_path: str,
               lines: LineMap) -> bool:
    """Whether the call's hazard after a rewrite stands only for writes it ran before, other than the one
    repaired."""
    allowed = _other_writes(target, repaired, written_path, lines)
    return bool(_remotes(still)) and all((os.path.realpath(r.path), r.span.line) in allowed for r in _remotes(still))
