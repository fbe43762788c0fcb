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
import re
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

MAX_MODULES = 32  # project modules loaded for one file (imports of imports included)
MAX_MODULE_BYTES = 1_000_000

_IMPORT_LINE = re.compile(r"^[ \t]*(?:from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([\w, \t]*)|import[ \t]+([\w., \t]+))",
                          re.MULTILINE)


def _search_roots(importer: Path) -> list[Path]:
    """Where an absolute import of `importer` is looked up: its folder, and the folder above its top package."""
    folder = importer.parent
    roots = [folder]
    top = folder
    while (top / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    if top != folder:
        roots.append(top)
    return roots


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
    """The project file `from <level dots><module> import ...` (or `import <module>`) names in `importer`."""
    if level > 0:
        base = importer.parent
        for _ in range(level - 1):
            base = base.parent
        return _module_file(base, module)
    for root in _search_roots(importer):
        found = _module_file(root, module)
        if found is not None:
            return found
    return None


def _same(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return a == b


def dependency_files(path: str, text: str) -> list[Path]:
    """Every project file the analysis of `path` may load (its imports, and theirs), in a stable order: what a
    cached result of `path` depends on besides its own bytes. A textual scan: it may list a file too many."""
    start = Path(path)
    if not start.name.endswith((".py", ".pyi")) or not start.parent.is_dir():
        return []
    found: list[Path] = []
    queue = [(start, text)]
    while queue and len(found) < MAX_MODULES:
        importer, source = queue.pop(0)
        for target in _imports_in_text(importer, source):
            if len(found) >= MAX_MODULES:
                break
            if _same(target, start) or any(_same(target, seen) for seen in found):
                continue
            found.append(target)
            try:
                queue.append((target, target.read_text(encoding="utf-8-sig", errors="replace")))
            except OSError:
                continue
    return found


def _imports_in_text(importer: Path, source: str) -> list[Path]:
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
            if dotted or level:
                target = resolve(importer, dotted, level)
                if target is not None:
                    targets.append(target)
    return targets


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
    try:
        info = target.stat()
        parsed = _parse(str(target), info.st_mtime_ns, info.st_size)
    except OSError:
        return None
    if parsed is None:
        return None
    source, tree, node_ids, lines = parsed
    return LoadedModule(target, display_name(importer, target), source, tree, node_ids, lines)


@lru_cache(maxsize=256)
def _parse(path: str, mtime_ns: int, size: int) -> tuple[str, ast.Module, frozenset, tuple] | None:
    """The text and tree of a module file (one parse per process while the file is unchanged: the files of a
    package import the same modules). Trees are shared, never modified."""
    del mtime_ns, size  # part of the cache key only
    try:
        data = Path(path).read_bytes()
        if len(data) > MAX_MODULE_BYTES:
            return None
        source = data.decode("utf-8-sig")
        tree = ast.parse(source, filename=path)
        return source, tree, frozenset(id(node) for node in ast.walk(tree)), tuple(source.splitlines())
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
