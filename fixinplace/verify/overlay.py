"""The other files of a fix, on the patched side of a run (child process; no torch).

A hazard reported at a call is repaired where the write is, in another file of the project (`fixinplace.fix.remote`).
Proving that fix means running the calling file, whose text may not change at all, once with that other file as it
is on disk (the original side) and once with its patched text (the patched side). A job carries those texts as
`overlays` (absolute path -> patched text). While a side of such a job runs, the modules of the job's folder and the
overlaid files are imported afresh (what the other side imported is forgotten, so that neither sees the other's
module objects), and on the patched side an import that finds an overlaid file executes its patched text instead of
the file's (no bytecode cache is read for it). The user's files are never written.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys


class _TextLoader(importlib.abc.Loader):
    """Executes a module from a text held in memory, under the file's name (tracebacks name the file's lines)."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.text = text

    def create_module(self, spec):  # the default module object
        return None

    def exec_module(self, module) -> None:
        exec(compile(self.text, self.path, "exec"), module.__dict__)


class _OverlayFinder(importlib.abc.MetaPathFinder):
    """Finds modules as the path finder does; one whose file has a patched text loads that text."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts

    def find_spec(self, name, path, target=None):
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is None or not spec.origin or not spec.has_location:
            return None
        text = self.texts.get(os.path.realpath(spec.origin))
        if text is None:
            return None
        return importlib.util.spec_from_file_location(
            name, spec.origin, loader=_TextLoader(spec.origin, text),
            submodule_search_locations=spec.submodule_search_locations)


def forget_modules(folders: list[str], files: frozenset[str] = frozenset()) -> None:
    """Drop from `sys.modules` the modules loaded from under `folders` or from `files` (real paths), so that the
    next import of one of them runs its file again."""
    roots = [os.path.realpath(folder).rstrip(os.sep) + os.sep for folder in folders]
    for name, module in list(sys.modules.items()):
        where = getattr(module, "__file__", None) or ""
        if not where:
            continue
        real = os.path.realpath(where)
        if real in files or any(real.startswith(root) for root in roots):
            del sys.modules[name]


@contextlib.contextmanager
def other_files(job: dict, role: str):
    """While entered: for a job whose fixes rewrote other files (`overlays`), the job's own modules import afresh,
    and on the `patched` side the rewritten files import from their patched texts. Nothing for other jobs."""
    overlays = job.get("overlays") or {}
    if not overlays:
        yield
        return
    texts = {os.path.realpath(path): text for path, text in overlays.items()}
    forget_modules([os.path.dirname(os.path.abspath(job["path"]))], frozenset(texts))
    importlib.invalidate_caches()
    finder = _OverlayFinder(texts) if role == "patched" else None
    if finder is not None:
        sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        if finder is not None and finder in sys.meta_path:
            sys.meta_path.remove(finder)
