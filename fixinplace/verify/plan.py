"""Which functions a fix changed, and how each is called (parent process: no torch, no user code).

A function's inputs come from, in this order: `--entry NAME [--inputs FACTORY]` (one run covers every changed
function of the file); a comment `# fixinplace: inputs=FACTORY` on the lines just above the function (or its
decorators), calling `function(*FACTORY())`; `[tool.fixinplace.verify] inputs` in the nearest pyproject
(`declare`); synthesised inputs (`signature`: tensor parameters, an instance built without arguments; the shapes
are chosen in the child); a module-level zero-argument function `main`, whose run covers the changed functions
that have none of these (and those whose synthesis fails in the child); else, when the file does work at top level
(a script, a notebook), running it as a script. Changed module-level code is verified by running the file as a
script, comparing the state it leaves and what it prints. Otherwise the function is `skipped`.
"""

from __future__ import annotations

import ast
import difflib
import re
from dataclasses import dataclass, field

from fixinplace.lines import line_texts
from fixinplace.verify.signature import SynthSpec, synth_spec, top_classes

INPUTS_COMMENT = re.compile(r"#\s*fixinplace:\s*inputs\s*=\s*([A-Za-z_][A-Za-z0-9_.]*)")
NO_INPUTS = "no inputs: pass --entry/--inputs or declare a factory"
MODULE = "<module>"


#: Rewrites that change what the program computes on purpose, in their words: an update moved after the backward
#: (the gradients are then those of the updated parameters' loss, later steps differ), a `.data` write made
#: differentiable (the gradient now includes the write; a program that trains then differs in its later outputs
#: too), a forward run again after the step that changed its parameters, a recurrent state cut from the graph where
#: an iteration ends (truncated backpropagation through time).
ON_PURPOSE = {
    "move_after_backward": "an update moved after the backward that read the parameters before it",
    "data_out_of_place": "a `.data` write made differentiable",
    "recompute_forward": "the forward run again after the step, on the updated parameters",
    "detach_carried_state": "the carried state cut from the graph where an iteration ends",
}

#: Hazards whose every fix changes what the program computes, whatever the rewrite: the write is a silent change
#: of something else the program reads, which the fix stops.
ON_PURPOSE_CODES = {
    "FIP105": "the NumPy array that shares the tensor's memory no longer gets the written values",
}


def on_purpose(fixes: list[dict]) -> list[str]:
    """What each of `fixes` (`{"code", "strategy", ...}`) does to the program's meaning, when every one of them
    changes it on purpose (`ON_PURPOSE`, `ON_PURPOSE_CODES`); else []."""
    words = [ON_PURPOSE.get(f["strategy"]) or ON_PURPOSE_CODES.get(f["code"]) for f in fixes]
    if not words or None in words:
        return []
    return sorted(set(words))


@dataclass
class Changed:
    """One function the fix changed: its qualified name, `def` line (original text) and the fixed codes."""

    function: str
    line: int
    codes: list[str] = field(default_factory=list)
    fixes: list[dict] = field(default_factory=list)  # {"line", "code", "strategy"} of each fix of its hazards
    inputs: str = ""  # from the `# fixinplace: inputs=` comment
    args: int = 0  # required positional parameters
    synth: SynthSpec = field(default_factory=SynthSpec)  # how to call it on synthesised inputs


def _functions(tree: ast.Module) -> list[tuple[str, ast.AST]]:
    found: list[tuple[str, ast.AST]] = []

    def walk(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = f"{prefix}{child.name}"
                found.append((name, child))
                walk(child, name + ".<locals>.")
            elif isinstance(child, ast.ClassDef):
                walk(child, f"{prefix}{child.name}.")
            else:
                walk(child, prefix)

    walk(tree, "")
    return found


def _required_args(fn: ast.AST) -> int:
    a = fn.args  # type: ignore[attr-defined]
    positional = len(a.posonlyargs) + len(a.args)
    required_kw = sum(1 for d in a.kw_defaults if d is None)
    return positional - len(a.defaults) + required_kw


def _declared_inputs(lines: list[str], fn: ast.AST) -> str:
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])  # type: ignore[attr-defined]
    i = first - 2
    while i >= 0 and lines[i].strip().startswith("#"):
        m = INPUTS_COMMENT.search(lines[i])
        if m:
            return m.group(1)
        i -= 1
    return ""


def changed_functions(original: str, patched: str, codes_by_line: dict[int, list[str]],
                      fixes: list[dict] | None = None, calls: list[int] | None = None) -> list[Changed]:
    """The innermost functions (in the original text) containing a line the fix changed, or one of `calls` (the
    lines of calls whose hazards were repaired in other files: running them runs the rewritten code), each with the
    fixes (`{"line", "code", "strategy"}`, lines of the original) of the hazards it contains."""
    tree = ast.parse(original)
    lines = line_texts(original)
    functions = _functions(tree)
    classes = top_classes(tree)
    old, new = line_texts(original), line_texts(patched)
    # Lines that hold no code (the module docstring, comments, blank lines) change nothing a run could show: such a
    # change outside every function asks for no run of the module.
    def docstring_lines(module: ast.Module) -> set[int]:
        node = module.body[0] if ast.get_docstring(module, clean=False) is not None else None
        return set(range(node.lineno, node.end_lineno + 1)) if node is not None else set()

    def inert(text: str) -> bool:
        return not text.strip() or text.lstrip().startswith("#")

    try:
        new_docstring = docstring_lines(ast.parse(patched))
    except SyntaxError:
        new_docstring = set()
    old_docstring = docstring_lines(tree)

    touched: list[tuple[int, bool]] = []  # (line of the original, whether the change there is only inert text)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        added_inert = all(j + 1 in new_docstring or inert(new[j]) for j in range(j1, j2))
        if tag == "insert":
            touched.append((max(i1, 1), added_inert))  # an inserted line belongs with the line before it
        else:
            touched.extend((i, added_inert and (i in old_docstring or inert(old[i - 1])))
                           for i in range(i1 + 1, i2 + 1))
    touched.extend((line, False) for line in calls or ())

    def innermost(line: int):
        best = None
        for name, fn in functions:
            start = min([fn.lineno] + [d.lineno for d in fn.decorator_list])  # type: ignore[attr-defined]
            if start <= line <= fn.end_lineno:  # type: ignore[attr-defined]
                if best is None or start >= best[2]:
                    best = (name, fn, start)
        return best

    out: dict[str, Changed] = {}
    for line, only_inert in touched:
        hit = innermost(line)
        if hit is None and only_inert:
            continue
        if hit is None:
            key, def_line, fn = MODULE, 1, None
        else:
            key, fn, def_line = hit[0], hit[1], hit[1].lineno
        if key not in out:
            out[key] = Changed(key, def_line, inputs=_declared_inputs(lines, fn) if fn is not None else "",
                               args=_required_args(fn) if fn is not None else 0,
                               synth=synth_spec(key, fn, classes) if fn is not None else SynthSpec(
                                   entry=key, reason="module-level code: no inputs can be synthesised for it"))
    orphans: list[str] = []  # fixed somewhere else than the write (clone at the save site, in the caller)
    for line, codes in codes_by_line.items():
        hit = innermost(line)
        key = hit[0] if hit is not None else MODULE
        if key in out:
            out[key].codes.extend(c for c in codes if c not in out[key].codes)
        else:
            orphans.extend(c for c in codes if c not in orphans)
    orphan_fixes: list[dict] = []
    for fix in fixes or ():
        hit = innermost(fix["line"])
        key = hit[0] if hit is not None else MODULE
        (out[key].fixes if key in out else orphan_fixes).append(fix)
    for changed in out.values():
        if not changed.codes:
            changed.codes.extend(orphans)
        if not changed.fixes:
            changed.fixes.extend(orphan_fixes)
    return sorted(out.values(), key=lambda c: c.line)


def defines(original: str, name: str) -> bool:
    """Whether the module defines `name`'s first component at top level (def, class, assignment, import)."""
    head = name.split(".")[0]
    for node in ast.parse(original).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == head:
            return True
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == head for t in targets):
                return True
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((a.asname or a.name.split(".")[0]) == head for a in node.names):
                return True
    return False


def runs_at_top_level(original: str) -> bool:
    """Whether the module does work when run as a script: a top-level call, loop, `with`, `if` (an `if __name__ ==
    "__main__":` block) or `try` (not only definitions, imports and assignments)."""
    work = (ast.Expr, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.If, ast.Try)
    return any(isinstance(node, work) and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
               for node in ast.parse(original).body)


def zero_arg_main(original: str) -> bool:
    for node in ast.parse(original).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "main":
            return _required_args(node) == 0
    return False
