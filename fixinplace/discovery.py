"""Which files `fixinplace check PATH...` looks at.

- A path given explicitly as a file is always checked, whatever its name and whatever the exclusions say.
- A folder is walked for `*.py` files (not `.pyi`) and Jupyter notebooks (`*.ipynb`, see `fixinplace.notebook`;
  `extend-exclude = ["*.ipynb"]` leaves them out), in sorted order, skipping:
  * entries whose name or path matches an `exclude` / `extend-exclude` glob (see `settings.DEFAULT_EXCLUDE`:
    `.git`, `.venv`, `venv`, `__pycache__`, `build`, `dist`, `*.egg-info`, `node_modules`, `site-packages`, ...);
  * any folder that holds a `pyvenv.cfg` (a virtual environment, whatever its name, e.g. `env/`);
  * what `.gitignore` files ignore (when `respect-gitignore` is on): the `.gitignore` of every walked folder,
    and those of the walked root's parents up to the enclosing git work tree (the first folder with `.git`).
  The folder given on the command line is itself never excluded (`fixinplace check build/` checks `build/`).
- Exclude globs: a glob without `/` is matched against the name of every file and folder (`build`, `*_pb2.py`);
  a glob with `/` is matched against the path relative to the project root (the folder of the config file, else
  the working directory) and against the absolute path; `*` and `?` do not cross `/`, `**` does, and a trailing
  `/` matches folders only.
- `.gitignore` semantics, simplified: blank lines and `#` comments are skipped; a pattern without a `/` (other
  than a trailing one) matches a name at any depth below its `.gitignore`, one with a `/` is anchored to the
  folder of its `.gitignore`; `**`, trailing `/` and `!` negation are honoured (the last matching pattern wins;
  as in git, a file inside an ignored folder cannot be re-included because the folder is never entered).
  `.git/info/exclude`, the global excludes file and escaped trailing spaces are not read.
- A path that does not exist, or a folder with no Python file left after the exclusions, yields a `FileError`.

Paths are reported as given (`fixtures/` -> `fixtures/check/a.py`), normalised, with `/` separators.
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from fixinplace.diagnostics import FileError
from fixinplace.globs import ExcludeGlob, glob_to_regex, posix_path as _posix
from fixinplace.reading import os_reason
from fixinplace.settings import Settings


@dataclass(frozen=True)
class GitignoreRule:
    """One line of a `.gitignore`, anchored at the folder that holds the file."""

    base: str  # absolute posix path of the folder holding the .gitignore
    regex: re.Pattern[str]
    negate: bool
    dir_only: bool
    anchored: bool

    def matches(self, abs_path: str, name: str, is_dir: bool) -> bool | None:
        """True (ignore), False (re-include) or None (pattern does not apply)."""
        if self.dir_only and not is_dir:
            return None
        prefix = self.base.rstrip("/") + "/"
        if not abs_path.startswith(prefix):
            return None
        rel = abs_path[len(prefix) :]
        hit = self.regex.match(rel if self.anchored else name) is not None
        return (not self.negate) if hit else None


def parse_gitignore(text: str, base: str) -> list[GitignoreRule]:
    """The rules of one `.gitignore` file (see the module docstring for what is supported)."""
    rules: list[GitignoreRule] = []
    for line in text.splitlines():
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        if line.startswith("\\"):  # escaped leading '#' or '!'
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        rules.append(GitignoreRule(base, glob_to_regex(line), negate, dir_only, anchored))
    return rules


def _read_gitignore(folder: str) -> list[GitignoreRule]:
    path = os.path.join(folder, ".gitignore")
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return parse_gitignore(f.read(), _posix(folder))
    except OSError:
        return []


def _parent_gitignores(folder: str) -> list[GitignoreRule]:
    """Rules from the `.gitignore` files of the folders above `folder`, up to the enclosing git work tree."""
    chain: list[str] = []
    current = os.path.dirname(folder)
    if os.path.exists(os.path.join(folder, ".git")):
        return []
    while current and current != os.path.dirname(current):
        chain.append(current)
        if os.path.exists(os.path.join(current, ".git")):
            break
        current = os.path.dirname(current)
    else:
        return []  # not inside a git work tree: only the walked folders' own .gitignore files count
    rules: list[GitignoreRule] = []
    for parent in reversed(chain):
        rules.extend(_read_gitignore(parent))
    return rules


def _gitignored(rules: Sequence[GitignoreRule], abs_path: str, name: str, is_dir: bool) -> bool:
    result = False
    for rule in rules:
        verdict = rule.matches(abs_path, name, is_dir)
        if verdict is not None:
            result = verdict
    return result


@dataclass
class Discovery:
    """The files to check (display paths, sorted) and the paths that could not be used."""

    files: list[str] = field(default_factory=list)
    errors: list[FileError] = field(default_factory=list)


class _Walker:
    def __init__(self, settings: Settings):
        self.settings = settings
        self.globs = [ExcludeGlob.parse(g) for g in settings.all_excludes if g.strip()]
        self.includes = [ExcludeGlob.parse(g) for g in settings.all_includes if g.strip()]
        self.root = _posix(os.path.normpath(str(settings.project_root.absolute())))

    def excluded(self, abs_path: str, name: str, is_dir: bool) -> bool:
        return self._matches(self.globs, abs_path, name, is_dir)

    def included(self, abs_path: str, name: str) -> bool:
        """Whether a file found in a folder is one to check (`include`, `extend-include`)."""
        return self._matches(self.includes, abs_path, name, False)

    def _matches(self, globs: list, abs_path: str, name: str, is_dir: bool) -> bool:
        rel: str | None = None
        if abs_path.startswith(self.root.rstrip("/") + "/"):
            rel = abs_path[len(self.root.rstrip("/")) + 1 :]
        return any(g.matches(abs_path, rel, name, is_dir) for g in globs)

    def walk(self, display: str, abs_dir: str) -> tuple[list[tuple[str, str]], FileError | None]:
        """(display path, absolute path) of the Python files under one folder given on the command line."""
        found: list[tuple[str, str]] = []
        rules = _parent_gitignores(abs_dir) if self.settings.respect_gitignore else []
        seen: set[str] = set()
        error: list[FileError] = []

        def visit(disp: str, absd: str, rules: list[GitignoreRule]) -> None:
            real = os.path.realpath(absd)
            if real in seen:  # a symlink loop
                return
            seen.add(real)
            if self.settings.respect_gitignore:
                rules = rules + _read_gitignore(absd)
            try:
                with os.scandir(absd) as it:
                    entries = sorted(it, key=lambda e: e.name)
            except OSError as e:
                if not error:
                    error.append(FileError(disp, f"cannot read directory: {e.strerror or e}"))
                return
            for entry in entries:
                name = entry.name
                abs_p = _posix(os.path.join(absd, name))
                disp_p = name if disp == "." else f"{disp.rstrip('/')}/{name}"
                try:
                    is_dir = entry.is_dir()
                    is_file = entry.is_file()
                except OSError:
                    continue
                if self.excluded(abs_p, name, is_dir):
                    continue
                if rules and _gitignored(rules, abs_p, name, is_dir):
                    continue
                if is_dir:
                    if os.path.exists(os.path.join(abs_p, "pyvenv.cfg")):
                        continue
                    visit(disp_p, abs_p, rules)
                elif is_file and self.included(abs_p, name):
                    found.append((disp_p, abs_p))

        visit(display, abs_dir, rules)
        return found, (error[0] if error else None)


def _missing(path: str) -> str:
    """Why a path that does not exist (for `os.path.exists`) cannot be checked."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ENOENT and os.path.islink(path):
            return "a broken symbolic link"
        return os_reason(e)
    return "no such file or directory"  # pragma: no cover - it appeared since


def discover(paths: Iterable[str], settings: Settings | None = None, cwd: Path | None = None) -> Discovery:
    """Expand the command line's paths into the sorted, de-duplicated list of files to check."""
    settings = settings or Settings()
    cwd = (cwd or Path.cwd()).absolute()
    walker = _Walker(settings)
    result = Discovery()
    chosen: dict[str, str] = {}  # absolute path -> display path
    for raw in paths:
        display = _posix(os.path.normpath(raw)) if raw else "."
        abs_path = _posix(os.path.normpath(os.path.join(str(cwd), raw)))
        if os.path.isdir(abs_path):
            files, error = walker.walk(display, abs_path)
            if error is not None:
                result.errors.append(error)
            elif not files:
                result.errors.append(FileError(display, "no Python files found"))
            for disp, absp in files:
                chosen.setdefault(absp, disp)
        elif os.path.exists(abs_path):
            chosen.setdefault(abs_path, display)
        else:
            result.errors.append(FileError(display, _missing(abs_path)))
    result.files = sorted(chosen.values())
    return result
