"""The modules of the checked file's own project: which file an `import` names, and their parsed text.

A file is analysed with the modules it imports from its own project (a sibling `models.py`, a package's
`from .layers import Block`), so a model defined in one file and trained in another is one program. A module is
found the way Python would find it when the file runs as a script or as part of its package: relative imports from
the file's package, absolute ones from the file's folder or from the folder above its top-level package. Only
regular files within the size limit are read; a module that cannot be read, decoded or parsed is unknown, as an
installed library is.
"""

from __future__ import annotations

import ast
import hashlib
import re
import stat
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterator, Mapping

from fixinplace.lines import line_texts
from fixinplace.parsing import parse_module
from fixinplace.reading import read_regular_bytes

MAX_MODULES = 8  # project modules run for one file, the first ones it uses (on a large package, more cost
# several times the time for no finding: measured on transformers' modeling files)
MAX_MODULE_BYTES = 1_000_000
MAX_DEPENDENCIES = 64  # project files a file's analysis may read (what its cached result is keyed on)

_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]*)|import[ \t]+([\w., \t]+))", re.MULTILINE)


# Project files whose text is taken from here instead of the disk (the fix stage trying a rewrite of one file
# against the files that import it): real path -> text.
_OVERLAY: ContextVar[dict[Path, str]] = ContextVar("fixinplace_overlay", default={})


@contextmanager
def overlay(texts: Mapping[str, str]) -> Iterator[None]:
    """Inside the block, the project files named (by path) read as these texts wherever an analysis loads them,
    lists their imports or fingerprints them; blocks nest, the inner text of a file winning."""
    current = {**_OVERLAY.get(), **{real_path(Path(p)): text for p, text in texts.items()}}
    token = _OVERLAY.set(current)
    try:
        yield
    finally:
        _OVERLAY.reset(token)


def overlaid_text(path: Path) -> str | None:
    """The text the overlay gives a file, or None when it is read from the disk."""
    texts = _OVERLAY.get()
    return texts.get(real_path(path)) if texts else None


def overlay_key() -> tuple:
    """What the overlay in force holds, as a key for results that depend on it: (path, digest of the text)."""
    return tuple(sorted((str(p), _digest(text)) for p, text in _OVERLAY.get().items()))


@lru_cache(maxsize=256)
def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


def _search_roots(importer: Path) -> list[Path]:
    """Where an absolute import of `importer` is looked up: its folder, and the folder above its top package."""
    folder = importer.parent
    return [folder, _top_package(folder).parent] if (folder / "__init__.py").is_file() else [folder]


def _module_file(base: Path, dotted: str) -> Path | None:
    """`base/a/b.py` or `base/a/b/__init__.py` for `a.b`, when it is a regular file of acceptable size."""
    parts = [p for p in dotted.split(".") if p]
    if not parts:
        candidates = [base / "__init__.py"]
    else:
        stem = base.joinpath(*parts)
        candidates = [stem.with_name(stem.name + ".py"), stem / "__init__.py"]
    for candidate in candidates:
        try:
            info = candidate.stat()
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode) and info.st_size <= MAX_MODULE_BYTES:
            return candidate
    return None


def resolve(importer: Path, module: str, level: int) -> Path | None:
    """The project file `from <level dots><module> import ...` (or `import <module>`) names in `importer`.

    Never a file of the `torch` package itself (checking torch's own sources, `import torch` would find it):
    torch is what the analysis models from its measured table, not code it runs."""
    if level == 0 and module.split(".")[0] == "torch":
        return None
    if level > 0:
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        found = _module_file(base, module)
    else:
        found = next((f for f in (_module_file(root, module) for root in _search_roots(importer)) if f), None)
    if found is None:
        return None
    top = _top_package(found.parent)
    return None if top.name == "torch" and (top / "__init__.py").is_file() else found


def _top_package(folder: Path) -> Path:
    """The outermost package holding a folder (the folder itself when its parent is no package)."""
    top = folder
    while (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return top


@lru_cache(maxsize=4096)
def real_path(path: Path) -> Path:
    """The path with links and `..` resolved (remembered per process, see `forget`)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return path


def dependency_files(path: str, text: str) -> list[Path]:
    """Every project file the analysis of `path` may load (its imports, and theirs, breadth first, at most
    MAX_DEPENDENCIES), in a stable order: what a cached result of `path` depends on besides its own bytes. The
    analysis loads no other project file. A textual scan: it may list a file too many."""
    start = Path(path)
    if not start.name.endswith((".py", ".pyi", ".ipynb")) or not start.parent.is_dir():
        return []
    found: list[Path] = []
    seen = {real_path(start)}
    queue = [_imports_in_text(start, text)]  # the imports of each file found, in the order found
    while queue and len(found) < MAX_DEPENDENCIES:
        for target in queue.pop(0):
            if len(found) >= MAX_DEPENDENCIES:
                break
            real = real_path(target)
            if real in seen:
                continue
            seen.add(real)
            found.append(target)
            queue.append(_imports_of_file(target))
    return found


def dependency_fingerprint(path: str, text: str) -> tuple:
    """What the project files the analysis of `path` may load look like now: (path, mtime, size) of each."""
    out = []
    for dependency in dependency_files(path, text):
        replaced = overlaid_text(dependency)
        if replaced is not None:
            out.append((str(dependency), "overlay", _digest(replaced)))
            continue
        try:
            info = dependency.stat()
        except OSError:
            out.append((str(dependency), None, None))
            continue
        out.append((str(dependency), info.st_mtime_ns, info.st_size))
    return tuple(out)


def _imports_of_file(path: Path) -> tuple[Path, ...]:
    replaced = overlaid_text(path)
    if replaced is not None:
        return _imports_in_text(path, replaced)
    try:
        info = path.stat()
    except OSError:
        return ()
    return _cached_imports(path, info.st_mtime_ns, info.st_size)


@lru_cache(maxsize=4096)
def _cached_imports(path: Path, mtime_ns: int, size: int) -> tuple[Path, ...]:
    """The project files a module file imports (one scan per process while the file is unchanged)."""
    del mtime_ns, size  # part of the cache key only
    try:
        return _imports_in_text(path, read_regular_bytes(str(path), MAX_MODULE_BYTES).decode("utf-8-sig", "replace"))
    except OSError:
        return ()


def _imports_in_text(importer: Path, source: str) -> tuple[Path, ...]:
    targets: list[Path] = []
    for match in _IMPORT_LINE.finditer(source):
        dots, module, names, plain = match.groups()
        if plain is not None:
            modules = [(part.split(" as ")[0].strip(), 0) for part in plain.split(",")]
        else:
            level = len(dots)
            modules = [(module, level)]
            # `from . import models` / `from pkg import sub`: the names may be modules themselves.
            modules += [((module + "." if module else "") + name.split(" as ")[0].strip(), level)
                        for name in names.split(",") if name.strip()]
        for dotted, level in modules:
            target = resolve_cached(importer, dotted, level)
            if target is not None:
                targets.append(target)
    return tuple(targets)


@lru_cache(maxsize=16384)
def resolve_cached(importer: Path, dotted: str, level: int) -> Path | None:
    """`resolve`, remembered per process (see `forget`); None for an import that names nothing (`import` of "")."""
    return resolve(importer, dotted, level) if dotted or level else None


def forget() -> None:
    """Drop what this process remembers of the project's files (which module an import names): for a
    long-running process (the language server), where files appear and disappear between analyses. Parsed
    texts are kept: they are keyed by each file's modification time and size."""
    resolve_cached.cache_clear()
    real_path.cache_clear()


@dataclass
class LoadedModule:
    """One project module the analysis read: its display name (for messages), text and tree."""

    path: Path
    display: str
    source: str
    tree: ast.Module
    node_ids: frozenset  # ids of every node of `tree`: how a position is told to be in this file
    lines: tuple  # the text's lines
    env: dict = field(default_factory=dict)  # its module scope once run


def display_name(importer: Path, target: Path) -> str:
    """How messages name another project file: relative to the importing file's folder when below it."""
    try:
        return target.resolve().relative_to(importer.parent.resolve()).as_posix()
    except (OSError, ValueError):
        return target.name


def load(importer: Path, target: Path) -> LoadedModule | None:
    """Read and parse one project module, or None when it cannot be (it is then unknown, as a library is)."""
    replaced = overlaid_text(target)
    try:
        if replaced is not None:
            parsed = _parse_text(str(target), replaced)
        else:
            info = target.stat()
            parsed = _parse(str(target), info.st_mtime_ns, info.st_size)
    except OSError:
        return None
    if parsed is None:
        return None
    source, tree, node_ids, lines = parsed
    return LoadedModule(target, display_name(importer, target), source, tree, node_ids, lines)


@lru_cache(maxsize=48)
def _parse(path: str, mtime_ns: int, size: int) -> tuple[str, ast.Module, frozenset, tuple] | None:
    """The text and tree of a module file (one parse per process while the file is unchanged: the files of a
    package import the same modules). Trees are shared, never modified."""
    del mtime_ns, size  # part of the cache key only
    try:
        data = read_regular_bytes(path, MAX_MODULE_BYTES)
        return _parse_text(path, data.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError):
        return None


@lru_cache(maxsize=16)
def _parse_text(path: str, source: str) -> tuple[str, ast.Module, frozenset, tuple] | None:
    """`_parse` of a text (an overlaid one: one parse per process for each rewrite tried)."""
    try:
        tree = parse_module(source, filename=path)
        return source, tree, frozenset(id(node) for node in ast.walk(tree)), tuple(line_texts(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
