"""The `check` cache: one file's result, keyed by everything that could change it, so unchanged files are skipped.

An entry's key is the SHA-256 of: the file's path (as reported) and its bytes, and the paths and bytes of the project
modules it imports (the analysis runs them with it); the fixinplace version and a digest
of fixinplace's own sources (so an edited analysis never reuses old results); the saved-tensor table's bytes; the
settings that change a file's result (select, ignore, severity, max-file-size); and whether the text pre-filter
is on. Each entry also holds its own key and the file's path, and is used only when both are the ones asked
for: an entry copied or moved to another file's key is a miss (and is rewritten). Entries live in `<project root>/.fixinplace_cache/v1/` (`cache-dir` in the configuration), one JSON file
each, written to a temporary file and renamed into place, so several processes (the worker processes of one run,
or two runs at once) can write the same entry safely: the last rename wins and every version is complete. An
entry that cannot be read or does not have the expected shape is ignored (the file is checked again), never an
error. The folder holds a `.gitignore` (`*`) and a `CACHEDIR.TAG`, so it is never committed or backed up.

Only `check` uses the cache: `fix` (and the language server) always analyse the text they are about to rewrite.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Any

from fixinplace import __version__, prefilter
from fixinplace.analysis import project
from fixinplace.diagnostics import Applicability, Diagnostic, FileError, FileResult, Fix, Related, Severity
from fixinplace.facts import WriteFacts
from fixinplace.lines import count_line_endings
from fixinplace.notebook import NotebookError, parse_notebook
from fixinplace.reading import is_notebook, read_regular_bytes
from fixinplace.rules import RULES_BY_CODE
from fixinplace.settings import Settings

SCHEMA = "v8"
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # far above any real entry; a link to /dev/zero stops here
_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# This folder is a cache made by fixinplace (check --no-cache skips it).\n"


@lru_cache(maxsize=1)
def tool_fingerprint() -> str:
    """A digest of the fixinplace version, its Python sources and the saved-tensor table (computed once per process)."""
    package = Path(__file__).resolve().parent
    codemods = package.parent / "codemods"  # the rewrites behind the fixes that refined results carry
    digest = hashlib.sha256(f"fixinplace {__version__}\n".encode())
    tables = [package / "data" / "saved_tensors.json", package / "data" / "saved_tensors.cuda.json"]
    for path in sorted(package.rglob("*.py")) + sorted(codemods.rglob("*.py")) + tables:
        try:
            data = path.read_bytes()
        except OSError:
            data = b"<missing>"
        digest.update(f"{path.relative_to(package.parent).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def settings_fingerprint(settings: Settings, prefilter_on: bool, variant: str = "") -> str:
    """The settings that change one file's result, as a string (`variant`: the refinement of the results, whose
    fixes also depend on the fix settings)."""
    fix_settings = [settings.unsafe_fixes, settings.fix_style] if variant else []
    return json.dumps(
        [list(settings.select), list(settings.ignore), settings.severity.value, settings.device, settings.max_file_size, prefilter_on,
         variant, *fix_settings, [[glob, list(codes)] for glob, codes in settings.per_file_ignores]]
    )


def cache_folder(settings: Settings) -> Path:
    """Where the cache of this run lives: `cache-dir`, relative to the project root (the config's folder or cwd)."""
    folder = Path(settings.cache_dir).expanduser()
    return folder if folder.is_absolute() else settings.project_root / folder


class Cache:
    """Read and write the cached results of single files."""

    def __init__(self, folder: Path, settings_key: str) -> None:
        self.folder = Path(folder)
        self.entries = self.folder / SCHEMA
        self._prefix = f"{tool_fingerprint()}\0{settings_key}\0".encode()
        self._ready = False

    @classmethod
    def for_settings(cls, settings: Settings, variant: str = "") -> "Cache":
        """The cache a `check` run with these settings (and refinement `variant`) reads and writes."""
        return cls(cache_folder(settings), settings_fingerprint(settings, prefilter.enabled(), variant))

    def key(self, path: str, data: bytes) -> str:
        """The entry key of one file's bytes, read from `path`, and of the project modules it imports (the
        analysis runs them with it: an edited `models.py` changes the result of the file that trains it)."""
        digest = hashlib.sha256(self._prefix)
        digest.update(path.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        for dependency in project.dependency_files(path, code_text(path, data)):
            digest.update(f"\0{dependency}\0{_file_digest(dependency)}".encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.entries / key[:2] / f"{key}.json"

    def get(self, key: str, path: str, data: bytes | None = None) -> FileResult | None:
        """The cached result for this key (of `path`, whose bytes are `data`), or None when there is none or it
        cannot be used: a miss, and the fresh result then replaces the entry."""
        try:
            raw = json.loads(read_regular_bytes(str(self._entry(key)), MAX_ENTRY_BYTES))
            if not isinstance(raw, dict) or raw.get("key") != key or raw.get("path") != path:
                return None  # an entry made for another file, text or settings (copied or moved here)
            return result_from_json(raw, path, data)
        except Exception:  # missing, unreadable, truncated or foreign entries are all just misses
            return None

    def put(self, key: str, result: FileResult) -> None:
        """Store one result (temp file + rename); a cache that cannot be written is silently not used."""
        target = self._entry(key)
        try:
            if not self._ready:
                self._prepare()
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".json", dir=target.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    # The key (a digest of the path, the bytes, the imported modules, the tool and the settings)
                    # and the path are stored too: an entry is used only for what it was computed for.
                    json.dump({**result_to_json(result), "key": key, "path": result.path}, f, separators=(",", ":"))
                os.replace(tmp, target)
            except BaseException:
                try:
                    os.unlink(tmp)
                except OSError:
                    pass
                raise
        except OSError:
            pass

    def _prepare(self) -> None:
        """Create the folder with its `.gitignore` and `CACHEDIR.TAG` (once per process)."""
        self.entries.mkdir(parents=True, exist_ok=True)
        for name, text in ((".gitignore", "# Made by fixinplace: never commit this cache.\n*\n"), ("CACHEDIR.TAG", _TAG)):
            marker = self.folder / name
            if not marker.exists():
                try:
                    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=self.folder)
                    with os.fdopen(fd, "w", encoding="utf-8") as f:
                        f.write(text)
                    os.replace(tmp, marker)
                except OSError:
                    pass
        self._ready = True


def code_text(path: str, data: bytes) -> str:
    """The Python code of a file's bytes, whose imports the analysis follows: a notebook's joined code cells."""
    text = data.decode("utf-8", "replace")
    if not is_notebook(path):
        return text
    try:
        return parse_notebook(text).join().text
    except NotebookError:
        return ""


def _file_digest(path: Path) -> str:
    """The SHA-256 of a file's bytes (each file read once per process while its size and time are unchanged: the
    files of a package import the same modules)."""
    try:
        info = path.stat()
    except OSError:
        return "unreadable"
    return _digest_cached(str(path), info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=8192)
def _digest_cached(path: str, mtime_ns: int, size: int) -> str:
    del mtime_ns, size  # part of the cache key only
    try:
        return hashlib.sha256(read_regular_bytes(path, project.MAX_MODULE_BYTES)).hexdigest()
    except OSError:
        return "unreadable"


# ---------------------------------------------------------------------------------------------------------------
# (De)serialising a FileResult


def result_to_json(result: FileResult) -> dict[str, Any]:
    """A FileResult as plain JSON data (every field of each diagnostic, so a cached one equals a fresh one)."""
    return {
        "schema": SCHEMA,
        "error": result.error.message if result.error is not None else None,
        "diagnostics": [
            {
                "cell": d.cell, "line": d.line, "column": d.column, "end_line": d.end_line, "end_column": d.end_column,
                "code": d.code, "severity": d.severity.value, "message": d.message,
                "fix": [d.fix.applicability, d.fix.description, d.fix.strategy, list(d.fix.made_in)]
                if d.fix is not None else None,
                "related": [[r.line, r.column, r.message, r.cell] for r in d.related],
                "facts": d.facts.to_json() if d.facts is not None else None,
            }
            for d in result.diagnostics
        ],
    }


def result_from_json(raw: Any, path: str, data: bytes | None = None) -> FileResult:
    """The FileResult stored by `result_to_json`; raises ValueError on an entry of any other shape: a wrong JSON
    type anywhere, an unknown code, severity or applicability, a position that is not a line of `data` (the file's
    bytes, when given) or that ends before it starts."""
    if not isinstance(raw, dict) or raw.get("schema") != SCHEMA:
        raise ValueError("not a fixinplace cache entry")
    error, entries = raw.get("error"), raw.get("diagnostics")
    if error is not None:
        if not isinstance(error, str) or not error or entries != []:
            raise ValueError("a malformed error")
        return FileResult(path, error=FileError(path, error))
    if not isinstance(entries, list):
        raise ValueError("diagnostics are not a list")
    if is_notebook(path):
        data = None  # a notebook's lines are lines of its cells, not of its JSON
    last_line = count_line_endings(data) + 1 if data is not None else None  # a line after the last ending
    last_column = len(data) + 1 if data is not None else None
    diagnostics = []
    for d in entries:
        if not isinstance(d, dict):
            raise ValueError("a diagnostic is not an object")
        line, column = _number(d.get("line"), last_line), _number(d.get("column"), last_column)
        end_line, end_column = _number(d.get("end_line"), last_line), _number(d.get("end_column"), last_column)
        if (end_line, end_column) < (line, column):
            raise ValueError("a diagnostic ends before it starts")
        code, message, fix, related = d.get("code"), d.get("message"), d.get("fix"), d.get("related")
        if code not in RULES_BY_CODE or not isinstance(message, str) or not message or not isinstance(related, list):
            raise ValueError("a malformed diagnostic")
        if fix is not None and not (isinstance(fix, list) and len(fix) == 4 and fix[0] in tuple(Applicability)
                                    and all(isinstance(x, str) for x in fix[:3]) and isinstance(fix[3], list)
                                    and all(isinstance(x, str) for x in fix[3])):
            raise ValueError("a malformed fix")
        if not all(isinstance(r, list) and len(r) == 4 and isinstance(r[2], str) for r in related):
            raise ValueError("a malformed related location")
        cell = d.get("cell")
        if cell is not None:
            cell = _number(cell, None)
        facts = d.get("facts")
        if facts is not None and not isinstance(facts, dict):
            raise ValueError("malformed facts")
        try:
            built_facts = WriteFacts.from_json(facts) if facts is not None else None
        except (KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"malformed facts: {e}") from None
        diagnostics.append(Diagnostic(
            path=path, line=line, column=column, end_line=end_line, end_column=end_column, code=code,
            severity=Severity(d.get("severity")), message=message,
            fix=Fix(*fix[:3], made_in=tuple(fix[3])) if fix is not None else None,
            related=tuple(Related(_number(r[0], last_line), _number(r[1], last_column), r[2],
                                  None if r[3] is None else _number(r[3], None)) for r in related),
            facts=built_facts, cell=cell,
        ))
    return FileResult(path, diagnostics=diagnostics)


def _number(value: Any, last: int | None) -> int:
    """A stored line or column: an int (not a bool, not a float) from 1 to `last`."""
    if type(value) is not int or value < 1 or (last is not None and value > last):
        raise ValueError(f"not a line or column of the file: {value!r}")
    return value
