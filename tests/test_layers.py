"""The package's import graph: no cycles, and the pipeline's order kept (discovery -> engine/analysis -> rules ->
fix -> verify -> front ends). Read from the source with `ast`, every import counted, also those inside functions
(a function-level import defers loading a module; it is still a dependency)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# The check stage: what `fixinplace check` runs before any fix is asked for. It never imports a later stage, nor
# LibCST or torch (check needs neither installed).
CHECK_STAGE = ("fixinplace.analysis", "fixinplace.engine", "fixinplace.parsing", "fixinplace.prefilter",
               "fixinplace.cache", "fixinplace.notebook", "fixinplace.rules", "fixinplace.optable", "fixinplace.facts",
               "fixinplace.diagnostics", "fixinplace.lines", "fixinplace.settings", "fixinplace.discovery",
               "fixinplace.globs", "fixinplace.reading", "fixinplace.deep")
LATER_STAGES = ("fixinplace.fix", "fixinplace.verify", "fixinplace.lsp", "fixinplace.trace", "fixinplace.cli",
                "fixinplace.output", "fixinplace.fixable", "fixinplace.launch", "codemods")


def _modules() -> dict[str, Path]:
    found = {}
    for package in ("fixinplace", "codemods"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module `name` imports (ours by their module names, others by their top package)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = name.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES and "." in target:
                target = target.rpartition(".")[0]
            if target != name:
                out.add(target)
    return out


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(GRAPH.get(node, ())):
            if target not in GRAPH:
                continue
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(GRAPH):
        if node not in index:
            visit(node)
    return found


def _in(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def test_the_graph_is_read():
    assert len(MODULES) > 60
    assert "fixinplace.engine" in GRAPH["fixinplace.cli"] or "fixinplace.engine" in GRAPH["fixinplace.stdin"]
    assert "fixinplace.fix.checked" in GRAPH["fixinplace.fix.standalone"]


def test_no_import_cycles():
    assert _cycles() == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if _in(n, CHECK_STAGE)))
def test_the_check_stage_imports_no_later_stage_nor_libcst_or_torch(name: str):
    later = sorted(t for t in GRAPH[name] if _in(t, LATER_STAGES) or t.split(".")[0] in ("libcst", "torch"))
    assert later == [], f"{name} imports {later}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("codemods")))
def test_the_codemods_read_only_the_facts_of_fixinplace(name: str):
    ours = sorted(t for t in GRAPH[name] if t.startswith("fixinplace"))
    assert set(ours) <= {"fixinplace.facts"}, f"{name} imports {ours}"


# A function-level import says why it is not at the top of its module, on its first line: `# deferred: <reason>`
# (the heavy module it keeps out of a start-up: torch, LibCST, rich, a later stage of the pipeline).
DEFERRED = re.compile(r"# deferred: \S")


def _function_level_imports(path: Path) -> list[tuple[int, str]]:
    """(line, text of its first line) of every import inside a function of the file at `path`."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found.update(inner.lineno for inner in ast.walk(node) if isinstance(inner, (ast.Import, ast.ImportFrom)))
    return [(line, lines[line - 1]) for line in sorted(found)]


def test_the_reader_of_function_level_imports(tmp_path: Path):
    sample = tmp_path / "sample.py"
    sample.write_text("import os\n\n\ndef f():\n    import json  # deferred: a reason\n\n    class C:\n"
                      "        def g(self):\n            from x import (  # deferred: another\n                y)\n"
                      "            import z\n", encoding="utf-8")
    found = _function_level_imports(sample)
    assert [line for line, _ in found] == [5, 9, 11]
    assert [line for line, text in found if not DEFERRED.search(text)] == [11]


def test_every_function_level_import_says_why_it_is_deferred():
    missing = [f"{path.relative_to(ROOT)}:{line}: {text.strip()}"
               for path in sorted(MODULES.values()) for line, text in _function_level_imports(path)
               if not DEFERRED.search(text)]
    assert missing == [], "imports inside functions without a `# deferred: <reason>` comment (move them to the " \
                          "top of the module, or say what they defer):\n" + "\n".join(missing)
