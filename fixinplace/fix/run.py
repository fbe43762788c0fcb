"""`fixinplace fix` over files: discovery, then each file fixed (a Python file here, a notebook in
`fixinplace.fix.notebooks`), then the counts settled across files.

    run_fix(paths, settings, apply=)   discovery + `fixinplace.fix.fix_text` on every file (unsafe fixes too with
                                        `settings.unsafe_fixes`); a `FixReport`
    settle(report, settings)           what remains after every file's fix, each file analysed with the others fixed

Reading, diffing and writing each file without damage is `fixinplace.fix.files`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from typing import Sequence

from fixinplace.analysis.project import dependency_files
from fixinplace.cache import code_text
from fixinplace.diagnostics import Applicability, Diagnostic, FileError, blocking, one_line
from fixinplace.discovery import discover
from fixinplace.engine import (SourceError, check_bytes, decode_source, read_source_bytes, select_diagnostics,
                               shared_analyses)
from fixinplace.fix.checked import fix_text, offer
from fixinplace.fix.files import (FileOutcome, FilePatch, PatchError, guarded_outcome, make_patch, read_file,
                                  write_if_changed, write_patch)
from fixinplace.fix.notebooks import fix_notebook
from fixinplace.fix.remote import fix_across_files, outside_writes
from fixinplace.reading import is_notebook
from fixinplace.settings import Settings


@dataclass
class FixReport:
    """Everything one `fix` run did, in file order."""

    outcomes: list[FileOutcome] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)  # paths and files that could not be fixed
    apply: bool = False
    unsafe: bool = False
    # Remaining hazards of calls whose writes are in files not in the run (each with those files): `fix` repairs a
    # call's hazard where its write is only in the files it was given.
    outside: list = field(default_factory=list)

    @property
    def patches(self) -> list[FilePatch]:
        return [o.patch for o in self.outcomes if o.patch is not None and o.patch.changed]

    @property
    def diff(self) -> str:
        return "".join(p.diff for p in self.patches)

    @property
    def applied(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.applied]

    @property
    def remaining(self) -> list[Diagnostic]:
        return [d for o in self.outcomes for d in o.remaining]

    @property
    def cleared(self) -> int:
        """How many error and warning hazards the fixes clear (or would): those found before less those that remain,
        in every file (a fix in one file can clear the diagnostics of the files that import it)."""
        return max(sum(o.found for o in self.outcomes) - len(self.remaining), 0)

    @property
    def fixed_files(self) -> list[str]:
        """Files rewritten (with `apply`) or that would be."""
        return [o.path for o in self.outcomes if o.patch is not None and o.patch.changed and (o.written or not self.apply)]

    @property
    def unsafe_only(self) -> list[Diagnostic]:
        """Remaining hazards that only an unsafe fix would remove (none when unsafe fixes are on)."""
        if self.unsafe:
            return []
        return [d for d in self.remaining if d.fix is not None and d.fix.applicability == Applicability.UNSAFE]

    @property
    def exit_code(self) -> int:
        """2 when a path or file could not be fixed; otherwise 1 when an error or warning hazard remains afterwards
        or, without `apply`, when the diff is not empty; else 0."""
        if self.errors:
            return 2
        return 1 if self.remaining or (not self.apply and self.patches) else 0


def fix_file(path: str, settings: Settings, *, apply: bool = False, cwd: str | None = None) -> FileOutcome:
    """Fix one file (without `apply`: only compute the patch). Problems become the outcome's one-line `error`."""
    with shared_analyses():  # the fixes, what remains and what was found analyse the same texts
        return _fix_file(path, settings, apply, cwd)


def _fix_file(path: str, settings: Settings, apply: bool, cwd: str | None) -> FileOutcome:
    if is_notebook(path):
        return _count_found(fix_notebook(path, settings, apply=apply, cwd=cwd), settings)

    def work(outcome: FileOutcome) -> None:
        source = read_file(path, settings.max_file_size)
        result = fix_text(source.text, path, settings)
        if result.unparsable:
            raise PatchError(f"cannot rewrite this file: LibCST cannot parse it, though Python can "
                             f"({result.unparsable})")
        outcome.applied = list(result.applied)
        outcome.remaining = list(result.remaining)
        if outcome.remaining and not settings.unsafe_fixes:
            # What `--unsafe-fixes` would still do, for the summary (`FixReport.unsafe_only`).
            outcome.remaining = offer(result.source, path, outcome.remaining, settings)
        if result.source != source.text:
            write_if_changed(outcome, make_patch(source, result.source, cwd), apply)

    return _count_found(guarded_outcome(path, work), settings)


def _count_found(outcome: FileOutcome, settings: Settings) -> FileOutcome:
    """Set `outcome.found`: the hazards `check` reports in the file's original text (those that remain when the
    text does not change; one more analysis when it does, since one fix can clear several)."""
    outcome.found = len(outcome.remaining)
    if outcome.error is None and outcome.patch is not None:
        try:
            outcome.found = len(reported_hazards(outcome.patch.source.data, outcome.path, settings))
        except SourceError:  # pragma: no cover - the text was analysed just before
            outcome.found = len(outcome.applied) + len(outcome.remaining)
    return outcome


def reported_hazards(data: bytes, path: str, settings: Settings, at: str | None = None) -> list[Diagnostic]:
    """The errors and warnings `check` reports for a file whose bytes are `data` (a notebook's too); `at`: where
    to analyse it instead of `path` (its copy in a shadow tree), the diagnostics still naming `path`."""
    if at is None:
        return blocking(check_bytes(data, path, settings)[0])
    found, _ = check_bytes(data, at, replace(settings, per_file_ignores=()))
    return blocking(select_diagnostics([replace(d, path=path) for d in found], settings))


def run_fix(paths: Sequence[str], settings: Settings | None = None, *, apply: bool = False,
            cwd: str | None = None) -> FixReport:
    """Discover the files under `paths` (as `check` does) and fix each one (unsafe fixes too when
    `settings.unsafe_fixes`); a file reached twice (a symlink and its target) is fixed once."""
    settings = settings or Settings()
    found = discover(paths, settings)
    report = FixReport(errors=list(found.errors), apply=apply, unsafe=settings.unsafe_fixes)
    seen: set[str] = set()
    for path in found.files:
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        # Every file is fixed against the others as they are (the diff is what --apply writes); the writes come
        # after, then `settle` counts what remains once they are all in place.
        outcome = fix_file(path, settings, apply=False, cwd=cwd)
        report.outcomes.append(outcome)
        if outcome.error is not None:
            report.errors.append(outcome.error)
    # A call's hazard whose write is in another file of the run: repaired there, checked against every file.
    fix_across_files(report.outcomes, settings, cwd)
    if apply:
        write_patches(report)
    settle(report, settings)
    report.outside = outside_writes(report.outcomes)
    return report


def write_patches(report: FixReport) -> None:
    """Write each outcome's patch; a file that cannot be written keeps its text and gets a one-line error."""
    for o in report.outcomes:
        if o.patch is None or not o.patch.changed or o.written:
            continue
        write_outcome(o, report)


def write_outcome(o: FileOutcome, report: FixReport) -> None:
    """Write one outcome's patch; a file that cannot be written keeps its text and gets a one-line error in
    `report`."""
    try:
        write_patch(o.patch)
        o.written = True
    except PatchError as e:
        o.undo(FileError(o.path, one_line(e)))
        report.errors.append(o.error)


def settle(report: FixReport, settings: Settings) -> None:
    """Make each outcome's `remaining` what `fixinplace check` finds once the fixes are in place (written with
    `report.apply`, else as they would be): a file is analysed again when a project module it imports changes (a
    fix in a helper clears the diagnostics at its calls in the files that import it), or when its own patch was
    dropped or cut down. Without `apply` the changed modules are not on disk: such a file is analysed in a shadow
    tree holding it, the modules it imports (changed ones with their new text) and the `__init__.py` files that
    make their packages."""
    final: dict[str, bytes] = {}  # absolute path -> new bytes, of each file the fixes change
    for o in report.outcomes:
        if o.patch is not None and o.patch.changed and (o.written or not report.apply):
            final[os.path.realpath(o.path)] = o.patch.new_data
    if not final and all(o.exact for o in report.outcomes):
        return
    shadow: _Shadow | None = None
    try:
        for o in report.outcomes:
            if o.error is not None and o.exact:
                continue  # a file that could not be read or fixed: `check` reports the same error
            try:
                own = final.get(os.path.realpath(o.path))
                data = own if own is not None else read_source_bytes(o.path, settings.max_file_size)
                deps = [d for d in dependency_files(o.path, code_text(o.path, data))
                        if os.path.realpath(d) in final]
                if not deps and o.exact:
                    continue
                at = None
                if deps and not report.apply:
                    shadow = shadow or _Shadow(final)
                    at = shadow.place(o.path, data, dependency_files(o.path, code_text(o.path, data)))
                found = reported_hazards(data, o.path, settings, at)
                if at is not None:
                    found = [shadow.restored(d) for d in found]
                o.remaining = _offered(data, o.path, found, settings, at)
                o.exact = True
            except (SourceError, OSError):
                continue
    finally:
        if shadow is not None:
            shadow.remove()


def _offered(data: bytes, path: str, hazards: list[Diagnostic], settings: Settings, at: str | None) -> list[Diagnostic]:
    """Remaining hazards with the fix `--unsafe-fixes` would apply (for the summary's list), for a Python file."""
    if not hazards or settings.unsafe_fixes or is_notebook(path):
        return hazards
    where = at or path
    offered = offer(decode_source(data), where, [replace(d, path=where) for d in hazards], settings)
    return [replace(d, path=path) for d in offered]


class _Shadow:
    """A temporary copy of the files one analysis reads, at their absolute paths under a temporary folder: the
    analysed file and its imports, with the new text of the files the fixes change."""

    def __init__(self, final: dict[str, bytes]) -> None:
        self.root = tempfile.mkdtemp(prefix="fixinplace-shadow-")
        self.final = final
        self.placed: set[str] = set()

    def path(self, path: str | os.PathLike) -> str:
        absolute = os.path.abspath(path)
        drive, rest = os.path.splitdrive(absolute)
        return os.path.join(self.root, drive.replace(":", ""), rest.lstrip("\\/"))

    def original(self, path: str) -> str:
        """The path a file placed in the tree stands for (any other path as it is)."""
        prefix = os.path.join(self.root, "")
        if not path.startswith(prefix):
            return path
        rest = path[len(prefix):]
        if os.name == "nt":
            drive, _, tail = rest.partition(os.sep)
            return f"{drive}:{os.sep}{tail}"
        return os.sep + rest

    def restored(self, d: Diagnostic) -> Diagnostic:
        """A diagnostic of a file analysed in the tree, naming the files its call writes in by their own paths
        (not their copies here, which are gone when the run ends)."""
        if d.facts is None or not d.facts.remotes:
            return d
        remotes = tuple(replace(r, path=self.original(r.path)) for r in d.facts.remotes)
        return replace(d, facts=replace(d.facts, remotes=remotes))

    def _put(self, path: str | os.PathLike, data: bytes | None) -> None:
        absolute = os.path.abspath(path)
        if absolute in self.placed:
            return
        self.placed.add(absolute)
        if data is None:
            data = self.final.get(os.path.realpath(absolute))
        if data is None:
            with open(absolute, "rb") as f:
                data = f.read()
        target = self.path(absolute)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "wb") as f:
            f.write(data)
        # The packages above it (what makes `from .a import b` and the top package resolve as they do).
        folder = os.path.dirname(absolute)
        while os.path.isfile(os.path.join(folder, "__init__.py")):
            marker = os.path.join(folder, "__init__.py")
            if marker not in self.placed:
                self._put(marker, None)
            parent = os.path.dirname(folder)
            if parent == folder:
                break
            folder = parent

    def place(self, path: str, data: bytes, dependencies: Sequence[os.PathLike]) -> str:
        """Put the file (with `data`) and its imports in the tree; return where to analyse it."""
        for dependency in dependencies:
            self._put(dependency, None)
        absolute = os.path.abspath(path)
        self.placed.discard(absolute)
        self._put(absolute, data)
        return self.path(absolute)

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
