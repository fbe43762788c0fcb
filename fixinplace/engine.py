"""Checking files: read and decode safely, parse with `ast`, analyse, then suppress, select and threshold.

Never imports or runs the checked code, and never imports torch. The steps are pure functions so that every
front end (CLI, LSP, fix) shares them:

    read_source(path, max_size) -> str          bytes -> text (PEP 263 cookie, UTF-8 BOM), or SourceError;
                                                the two steps, for `fix`, which encodes its rewrite back with the
                                                same codec: read_source_bytes(path, max_size) -> bytes and
                                                decode_source_bytes(data) -> (text, codec)
    might_write_in_place(text) -> bool          cheap text pre-filter (`fixinplace.prefilter`; no write form: not
                                                analysed, no diagnostics; still parsed)
    parse_source(text, path) -> ast.Module      or SourceError("syntax error at line L:C: msg")
    apply_suppressions(diags, text)             `# fixinplace: ignore` / `# fixinplace: ignore[FIP101, ...]`,
                                                and Ruff's `# noqa` / `# noqa: FIP101, ...`
    select_diagnostics(diags, settings)         --select / --ignore prefixes, then the severity threshold
    analyse_source(text, path)                  every rule and severity, suppressions applied (what the fix stage
                                                checks its rewrites against); inside `shared_analyses()`, once
                                                per text
    check_source(text, path, settings)          the above, selected and thresholded
    check_file(path, settings) -> FileResult    one file; problems become a one-line FileError
    run_check(paths, settings, refine=) -> Report   discovery + every file: cached results (`fixinplace.cache`,
                                                when `settings.cache`), the others in worker processes when
                                                there are many (`--jobs`), else in this one; `refine` lets a
                                                front end add to each file's diagnostics (the checked fixes)
"""

from __future__ import annotations

import ast
import functools
import io
import os
import re
import tokenize
import warnings
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Protocol, Sequence

from fixinplace import prefilter
from fixinplace.analysis import analyze_module
from fixinplace.analysis.project import (MAX_MODULE_BYTES, dependency_files, dependency_fingerprint, overlaid_text,
                                         overlay_key)
from fixinplace.deep import RECURSION_LIMIT, deep_call
from fixinplace.diagnostics import Diagnostic, FileError, FileResult, Severity, one_line
from fixinplace.discovery import discover
from fixinplace.lines import line_texts
from fixinplace.notebook import NotebookError, decode_notebook, parse_notebook, syntax_error, to_cells
from fixinplace.parsing import parse_module
from fixinplace.reading import (NotRegularFile, TooLarge, is_notebook, is_regular_file, os_reason,
                                read_regular_bytes)
from fixinplace.settings import Settings


class SourceError(Exception):
    """A file that cannot be checked; the message is one line (without the path)."""


# ---------------------------------------------------------------------------------------------------------------
# Reading and decoding


def decode_source_bytes(data: bytes) -> tuple[str, str]:
    """Decode Python source bytes as the interpreter would; return the text and the codec used.

    The codec is `tokenize.detect_encoding`'s: `"utf-8-sig"` when the file starts with a UTF-8 BOM (the text then
    has no BOM; encoding it back with the same codec restores it), the normalised name of a PEP 263 coding cookie
    (`"iso-8859-1"` for `latin-1`), else `"utf-8"`. Line endings are kept as they are (no newline translation).
    """
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        if "encoding problem" in e.msg:  # a UTF-8 BOM and a coding cookie naming another encoding
            raise SourceError("cannot decode: the file starts with a UTF-8 BOM but declares another encoding") from None
        if "unknown encoding" in e.msg:
            raise SourceError(f"cannot decode: {one_line(e.msg)}") from None
        encoding = "utf-8"  # undecodable bytes in the first two lines: say where, below
    try:
        return data.decode(encoding), encoding
    except UnicodeDecodeError as e:
        shown = "utf-8" if encoding == "utf-8-sig" else encoding
        line = data.count(b"\n", 0, e.start) + 1
        raise SourceError(
            f"cannot decode as {shown}: invalid byte 0x{data[e.start]:02x} at line {line} "
            f"(byte offset {e.start}); declare the file's encoding with a '# -*- coding: NAME -*-' comment"
        ) from None


def decode_source(data: bytes) -> str:
    """Decode Python source bytes as the interpreter would: UTF-8 BOM, PEP 263 coding cookie, else UTF-8."""
    return decode_source_bytes(data)[0]


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n} bytes"


def read_source_bytes(path: str, max_size: int | None = None) -> bytes:
    """The bytes of one file; huge, unreadable, binary or non-regular files (a FIFO, a device) raise
    `SourceError`."""
    max_size = Settings().max_file_size if max_size is None else max_size
    try:
        data = read_regular_bytes(path, max_size)
    except TooLarge as e:
        raise SourceError(f"file too large: {_megabytes(e.args[0])} exceeds the {_megabytes(max_size)} limit "
                          "(max-file-size)") from None
    except NotRegularFile as e:
        raise SourceError(str(e)) from None
    except OSError as e:
        raise SourceError(f"cannot read: {os_reason(e)}") from None
    if b"\x00" in data:
        raise SourceError("binary file (contains NUL bytes), not Python source")
    return data


def read_source(path: str, max_size: int | None = None) -> str:
    """The decoded text of one file; binary, huge, unreadable or undecodable files raise `SourceError`."""
    return decode_source(read_source_bytes(path, max_size))


# ---------------------------------------------------------------------------------------------------------------
# Pre-filter and parsing

def might_write_in_place(source: str) -> bool:
    """False when the text cannot hold an in-place write (see `fixinplace.prefilter`); True when the filter is off."""
    return not prefilter.enabled() or prefilter.might_write_in_place(source)


def parse_source(source: str, path: str = "<string>") -> ast.Module:
    """Parse with the stdlib `ast` (no code runs); failures raise `SourceError` with a one-line reason."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning (e.g. invalid escapes) is not ours to print
            return parse_module(source, filename=path)
    except SyntaxError as e:
        line = e.lineno or 1
        col = e.offset or 1
        raise SourceError(f"syntax error at line {line}:{col}: {one_line(e.msg)}") from None
    except ValueError as e:  # e.g. NUL characters in a str
        raise SourceError(f"cannot parse: {one_line(str(e))}") from None
    except MemoryError:
        raise SourceError("cannot parse: the code is too deeply nested") from None


# ---------------------------------------------------------------------------------------------------------------
# Suppression comments

_SUPPRESS = re.compile(r"#\s*fixinplace\s*:\s*ignore(?![\w-])(?:\[([^\]]*)\])?", re.IGNORECASE)
# Ruff's and flake8's form: `# noqa` (every code) or `# noqa: FIP101, E501` (codes of other tools are no concern of
# ours); `# noqa:` with no code after it is read as a bare `# noqa`, as flake8 does.
_NOQA = re.compile(r"#\s*noqa(?![\w-])(?:\s*:\s*([A-Z]+[0-9]+(?:(?:\s*,\s*|\s+)[A-Z]+[0-9]+)*))?", re.IGNORECASE)

#: line -> None (every code suppressed) or the suppressed code prefixes
Suppressions = dict[int, "frozenset[str] | None"]


def parse_suppressions(source: str) -> Suppressions:
    """The `# fixinplace: ignore[...]` comments of a file, found with `tokenize` (so never inside strings).

    `# fixinplace: ignore` suppresses every code on its line; `# fixinplace: ignore[FIP101, FIP102]` only those
    codes (prefixes work as in `--ignore`: `ignore[FIP1]`). The directive may follow other comment text. Ruff's
    `# noqa` (every code) and `# noqa: FIP101, E501` (those codes) are read the same way.
    """
    result: Suppressions = {}
    lowered = source.lower()
    if "fixinplace" not in lowered and "noqa" not in lowered:
        return result
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type != tokenize.COMMENT:
                continue
            for m in (*_SUPPRESS.finditer(tok.string), *_NOQA.finditer(tok.string)):
                line = tok.start[0]
                codes = None if m.group(1) is None else frozenset(
                    c.strip().upper() for c in re.split(r"[,\s]+", m.group(1)) if c.strip()
                )
                if not codes:
                    codes = None
                previous = result.get(line, frozenset())
                if codes is None or previous is None:
                    result[line] = None
                else:
                    result[line] = previous | codes
    except (tokenize.TokenError, SyntaxError):
        pass  # keep the comments seen before the tokenizer gave up
    return result


def _suppressed(diag: Diagnostic, suppressions: Suppressions) -> bool:
    for line in range(diag.line, max(diag.line, diag.end_line) + 1):
        if line in suppressions:
            codes = suppressions[line]
            if codes is None or any(diag.code.startswith(c) for c in codes):
                return True
    return False


def apply_suppressions(diagnostics: Iterable[Diagnostic], source: str) -> list[Diagnostic]:
    """Drop the diagnostics that a suppression comment covers (on any line from `line` to `end_line`)."""
    diagnostics = list(diagnostics)
    if not diagnostics:
        return diagnostics
    suppressions = parse_suppressions(source)
    if not suppressions:
        return diagnostics
    return [d for d in diagnostics if not _suppressed(d, suppressions)]


# ---------------------------------------------------------------------------------------------------------------
# Selection


def _specificity(code: str, selectors: Sequence[str]) -> int:
    """Length of the longest selector matching `code` (ALL counts as 0), -1 when none matches."""
    best = -1
    for sel in selectors:
        if sel == "ALL":
            best = max(best, 0)
        elif code.startswith(sel):
            best = max(best, len(sel))
    return best


def is_selected(code: str, settings: Settings) -> bool:
    """Whether a code is reported: selected (every code when `select` is empty) and not ignored.

    As in ruff, when a code matches both lists the more specific selector wins (`select = ["FIP101"]`,
    `ignore = ["FIP1"]` reports FIP101); on a tie, `ignore` wins.
    """
    chosen = _specificity(code, settings.select) if settings.select else 0
    if chosen < 0:
        return False
    ignored = _specificity(code, settings.ignore)
    return not (ignored >= 0 and ignored >= chosen)


def select_diagnostics(diagnostics: Iterable[Diagnostic], settings: Settings) -> list[Diagnostic]:
    """Keep the selected, not ignored diagnostics at or above the severity threshold, of hazards on the device the
    settings name, less those that `per-file-ignores` turns off in their file."""
    threshold = settings.severity.rank
    device = settings.device
    kept = [d for d in diagnostics if d.severity.rank >= threshold and is_selected(d.code, settings)
            and (d.device is None or device in ("any", d.device))]
    if settings.per_file_ignores and kept:
        off = {path: settings.ignored_in(path) for path in {d.path for d in kept}}
        kept = [d for d in kept if not any(d.code.startswith(c) or c == "ALL" for c in off[d.path])]
    return _most_severe_per_write(kept)


def _most_severe_per_write(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """One diagnostic per write and code: a hazard reported per device (an error on CUDA, a warning on the CPU) is
    shown once, as what is most severe on the devices kept."""
    def key(d: Diagnostic) -> tuple:
        return d.path, d.cell, d.line, d.column, d.end_line, d.end_column, d.code

    best: dict[tuple, Diagnostic] = {}
    for d in diagnostics:
        if d.device is not None and (key(d) not in best or d.severity.rank > best[key(d)].severity.rank):
            best[key(d)] = d
    return [d for d in diagnostics if d.device is None or best[key(d)] is d]


def sort_key(diag: Diagnostic) -> tuple:
    return (diag.path, diag.cell or 0, diag.line, diag.column, diag.code, diag.end_line, diag.end_column, diag.message)


# ---------------------------------------------------------------------------------------------------------------
# Checking


def _analyze(tree: ast.Module, source: str, path: str) -> list[Diagnostic]:
    return list(analyze_module(tree, source, path))


# The analyses made inside `shared_analyses()`, by (path, text, the project overlay in force); None outside it.
_SHARED: ContextVar[dict[tuple[str, str, tuple], tuple[Diagnostic, ...]] | None] = ContextVar("fixinplace_analyses",
                                                                                        default=None)


@contextmanager
def shared_analyses() -> Iterator[None]:
    """Inside the block, `analyse_source` analyses each (path, text) once: the check of a file, the fix stage's
    re-analysis of the same text and of rewrites that two passes both try (safe, then unsafe fixes) share one
    analysis. The files a text imports are taken as unchanged while the block runs, so it spans one file's work,
    not an editor's session. Nested blocks share the outermost one's analyses."""
    if _SHARED.get() is not None:
        yield
        return
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def analyse_source(source_text: str, path: str = "<string>") -> list[Diagnostic]:
    """Every diagnostic of one file's text, of every rule and severity, suppression comments applied (sorted).

    This is what the fix stage checks its rewrites against, whatever the user selected. Raises `SourceError`
    when the text cannot be parsed (every file is parsed: a file with a syntax error never passes); text without
    any in-place pattern is not analysed.
    """
    shared = _SHARED.get()
    key = (path, source_text, overlay_key())
    if shared is not None and key in shared:
        return list(shared[key])
    try:
        diagnostics = deep_call(_analyse_source, source_text, path)
    except RecursionError:
        raise SourceError(f"cannot analyse: the code nests deeper than {RECURSION_LIMIT:,} frames") from None
    if shared is not None:
        shared[key] = tuple(diagnostics)
    return diagnostics


def _analyse_source(source_text: str, path: str) -> list[Diagnostic]:
    tree = parse_source(source_text, path)
    imports_write = functools.cache(lambda: _imports_in_place_writes(source_text, path))
    if not might_write_in_place(source_text) and not imports_write():
        return []
    from fixinplace.analysis.components import analyse_components  # deferred: only for a file that may write in place

    def worth_analysing(part) -> bool:
        # A part with no in-place write form reports nothing, unless it imports project code that writes.
        if might_write_in_place(part.text):
            return True
        return any(isinstance(stmt, (ast.Import, ast.ImportFrom)) for stmt in part.statements) and imports_write()

    found = analyse_components(tree, source_text, path, line_texts(source_text),
                               lambda module: _analyze(module, source_text, path), worth_analysing,
                               context=dependency_fingerprint(path, source_text))
    diagnostics = [d if d.path == path else replace(d, path=path) for d in found]
    return sorted(set(apply_suppressions(diagnostics, source_text)), key=sort_key)


def _imports_in_place_writes(source_text: str, path: str) -> bool:
    """Whether a project module the file imports has an in-place write form: the file may run it (a training
    loop whose optimizer steps live in a trainer class of another file)."""
    for dependency in dependency_files(path, source_text):
        try:
            text = overlaid_text(dependency)
            if text is None:
                text = read_regular_bytes(str(dependency), MAX_MODULE_BYTES).decode("utf-8", "replace")
            if might_write_in_place(text):
                return True
        except OSError:
            continue
    return False


def check_source(source_text: str, path: str = "<string>", settings: Settings | None = None) -> list[Diagnostic]:
    """The diagnostics reported for one file's text (suppressed, selected, thresholded, sorted), without fixes.

    Raises `SourceError` when the text cannot be parsed. Text without any in-place pattern is not analysed.
    """
    return select_diagnostics(analyse_source(source_text, path), settings or Settings())


#: `refine(text, path, diagnostics, settings[, admissible=]) -> diagnostics`: what a front end adds to each file's
#: diagnostics (the fix stage's checked fixes, for formats that show them). A module-level function, so that worker processes
#: can run it; the cache keeps refined and plain results apart.
Refine = Callable[[str, str, list, Settings], list]


def _check(path: str, settings: Settings, refine: Refine | None = None) -> tuple[FileResult, str | None]:
    """One file's result, plus its text when it has diagnostics (for the text format's source lines).

    With `settings.cache` the result is stored (not for files that could not be read, nor for internal errors);
    `run_check` looks results up before it calls this.
    """
    try:
        data = read_source_bytes(path, settings.max_file_size)
    except SourceError as e:
        return FileResult(path, error=FileError(path, str(e))), None
    text = None
    try:
        diagnostics, text = check_bytes(data, path, settings, refine)
        result = FileResult(path, diagnostics=diagnostics)
    except SourceError as e:
        result = FileResult(path, error=FileError(path, str(e)))
    except Exception as e:  # a bug in the analysis must not stop the other files from being checked
        if os.environ.get("FIXINPLACE_DEBUG"):
            raise
        return FileResult(path, error=FileError(path, one_line(f"internal error: {type(e).__name__}: {e}"))), None
    if settings.cache and is_regular_file(path):
        cache = _cache_for(settings, refine)
        cache.put(cache.key(path, data), result)
    return result, (text if result.diagnostics else None)


def check_notebook(text: str, path: str, settings: Settings, refine: Refine | None = None) -> list[Diagnostic]:
    """The diagnostics of a notebook's JSON text (as `engine.check_source` gives them for a `.py` file, with
    `refine` applied), placed in their cells; raises `SourceError` with a one-line reason (the cell that
    does not parse, a file that is no notebook).

    Each code cell must parse on its own, as Jupyter runs it: a cell that continues a block of the cell above
    (`    y.add_(1)` after a cell that opens `def f(x):`) is a syntax error when run, even though the joined cells
    parse. Such a notebook is the same error here as in `fix` and `verify` (`syntax error in cell 3 ...`), never
    analysed as if the cells were one."""
    try:
        notebook = parse_notebook(text)
    except NotebookError as e:
        raise SourceError(str(e)) from None
    joined = notebook.join()
    numbers = notebook.code_cell_numbers()
    broken = syntax_error(joined, numbers)
    if broken:
        raise SourceError(broken)
    try:
        diagnostics = check_source(joined.text, path, settings)
    except SourceError as e:
        raise SourceError(syntax_error(joined, numbers) or str(e)) from None
    if refine is not None and diagnostics:
        diagnostics = refine(joined.text, path, diagnostics, settings, admissible=joined.admits)
    return to_cells(diagnostics, joined, numbers)


def check_bytes(data: bytes, path: str, settings: Settings,
                refine: Refine | None = None) -> tuple[list[Diagnostic], str]:
    """The selected diagnostics of one file's bytes (Python source, or a notebook's JSON when the path ends in
    `.ipynb`), refined, and the decoded text. Raises `SourceError` when they cannot be decoded or parsed."""
    with shared_analyses():  # the refinement (the fix stage) analyses the same text again
        return _check_bytes(data, path, settings, refine)


def _check_bytes(data: bytes, path: str, settings: Settings, refine: Refine | None) -> tuple[list[Diagnostic], str]:
    if is_notebook(path):
        try:
            text = decode_notebook(data)
        except NotebookError as e:
            raise SourceError(str(e)) from None
        return check_notebook(text, path, settings, refine), text
    text = decode_source(data)
    diagnostics = check_source(text, path, settings)
    if refine is not None and diagnostics:
        diagnostics = refine(text, path, diagnostics, settings)
    return diagnostics, text


def _text_of(data: bytes) -> str | None:
    try:
        return decode_source(data)
    except SourceError:
        return None


_CACHES: dict = {}


def _cache_for(settings: Settings, refine: Refine | None = None):
    """The `fixinplace.cache.Cache` of these settings and refinement (one per process)."""
    from fixinplace.cache import Cache  # deferred: the cache, only for a check that uses it (not fix, the LSP)

    variant = f"{refine.__module__}.{refine.__qualname__}" if refine is not None else ""
    key = (settings, prefilter.enabled(), variant)  # the filter switch is part of the cache key
    cache = _CACHES.get(key)
    if cache is None:
        cache = _CACHES[key] = Cache.for_settings(settings, variant)
    return cache


def check_file(path: str, settings: Settings | None = None) -> FileResult:
    """Check one file (never cached); a file that cannot be read, decoded or parsed gets a one-line `FileError`."""
    return _check(str(path), replace(settings or Settings(), cache=False))[0]


@dataclass
class Report:
    """Everything one `check` run found, in a deterministic order."""

    files: list[str] = field(default_factory=list)  # every file that was checked (or tried)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # text of the files with diagnostics

    @property
    def exit_code(self) -> int:
        """2 when a path or file could not be checked, else 1 when an error or warning is reported, else 0."""
        if self.errors:
            return 2
        if any(d.severity in (Severity.ERROR, Severity.WARNING) for d in self.diagnostics):
            return 1
        return 0


#: Below this many files to analyse, one process: starting worker processes would cost more than it saves.
_PARALLEL_MIN_FILES = 32
_FILES_PER_WORKER = 8  # at least this many files per worker process
#: Files larger than this are checked one at a time, in the main process (1 MiB: a few hundred MB of memory).
LARGE_FILE_BYTES = 1024 * 1024


class Progress(Protocol):
    """What `run_check` reports its progress to (the CLI's progress bar)."""

    def start(self, total: int) -> None: ...

    def advance(self, done: int = 1) -> None: ...


def _check_many(files: Sequence[str], settings: Settings, progress: Progress | None = None,
                refine: Refine | None = None) -> list[tuple[FileResult, str | None]]:
    """Every file's result, in the order of `files`: in worker processes when there are many, else here.

    Files over `LARGE_FILE_BYTES` are checked here, one at a time, after the others: the analysis of a file peaks
    at about 220 bytes of memory per source byte, so however many workers run, at most one large file is in memory
    at once (see docs/reliability.md, Memory)."""
    workers = min(settings.worker_count(), len(files) // _FILES_PER_WORKER or 1)
    if workers > 1 and len(files) >= _PARALLEL_MIN_FILES:
        large = {i for i, f in enumerate(files) if _size(f) > LARGE_FILE_BYTES}
        small = [f for i, f in enumerate(files) if i not in large]
        try:
            from concurrent.futures import ProcessPoolExecutor  # deferred: multiprocessing, only for worker processes

            with ProcessPoolExecutor(max_workers=workers) as pool:
                done = []
                # Small chunks keep the workers busy to the end (file costs vary a lot) and the progress smooth.
                chunk = max(1, min(8, len(small) // (workers * 16)))
                for item in pool.map(_check, small, [settings] * len(small), [refine] * len(small),
                                     chunksize=chunk):
                    done.append(item)
                    if progress is not None:
                        progress.advance()
        except (OSError, ImportError, RuntimeError):  # no process support here: fall back to one process
            pass
        else:
            checked = iter(done)
            return [_check_one(f, settings, refine, progress) if i in large else next(checked)
                    for i, f in enumerate(files)]
    return [_check_one(f, settings, refine, progress) for f in files]


def _check_one(path: str, settings: Settings, refine: Refine | None,
               progress: Progress | None) -> tuple[FileResult, str | None]:
    result = _check(path, settings, refine)
    if progress is not None:
        progress.advance()
    return result


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except OSError:
        return 0  # the check itself reports why the file cannot be read


def run_check(paths: Sequence[str], settings: Settings | None = None, progress: Progress | None = None,
              refine: Refine | None = None) -> Report:
    """Discover the files under `paths`, check each one (cached results first), and collect them into a `Report`;
    `refine` adds to each file's diagnostics (see `Refine`).

    The report is the same whatever the number of processes and whether results came from the cache.
    """
    settings = settings or Settings()
    found = discover(paths, settings)
    report = Report(files=list(found.files), errors=list(found.errors))
    if progress is not None:
        progress.start(len(found.files))
    results: list = [None] * len(found.files)
    todo = list(range(len(found.files)))
    if settings.cache:
        todo = []
        for i, path in enumerate(found.files):  # cache hits are cheaper here than in a worker process
            hit = _cached(path, settings, refine)
            if hit is None:
                todo.append(i)
            else:
                results[i] = hit
                if progress is not None:
                    progress.advance()
    for i, item in zip(todo, _check_many([found.files[i] for i in todo], settings, progress, refine)):
        results[i] = item
    for result, text in results:
        if result.error is not None:
            report.errors.append(result.error)
        report.diagnostics.extend(result.diagnostics)
        if text is not None:
            report.sources[result.path] = text
    report.diagnostics.sort(key=sort_key)
    return report


def _cached(path: str, settings: Settings, refine: Refine | None = None) -> tuple[FileResult, str | None] | None:
    """A file's cached result (and its text when it has diagnostics), or None (also when it cannot be read, and
    for what is not a regular file)."""
    if not is_regular_file(path):
        return None
    try:
        data = read_source_bytes(path, settings.max_file_size)
    except SourceError:
        return None
    cache = _cache_for(settings, refine)
    result = cache.get(cache.key(path, data), path, data)
    if result is None:
        return None
    return result, (_text_of(data) if result.diagnostics else None)
