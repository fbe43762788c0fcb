"""How right `fixinplace verify` is, on program sets whose fixes are judged by running them.

    python bench/verify_score.py [SET ...] [--verbose] [--fixinplace PATH]

SET is a folder of bench/fixsets/ (`heldout`, `dev`, `check12`, `realbugs`) or a path; default `heldout`. For each
set, `bench/fix_score.py` applies `fix --apply --unsafe-fixes` to copies of the programs and judges every fix by
running the patched program against the intended one (`fixed`: it returns what intended.py returns; `wrong`: it
runs and returns something else). Then `fixinplace verify *.py --entry main --unsafe-fixes --device cpu`
runs on each original whose fix is judged, and its verdict (the worst of its results: failed, skipped, changed,
verified) is tallied against the judgement:

    proved         a right fix, verified
    caught         a wrong fix, failed
    false proof    a wrong fix, verified (must be 0)
    right, not proved   a right fix called failed, skipped or changed (each counted)
    wrong, not caught   a wrong fix skipped or changed

Every top-level file of a program is verified (`verify program.py model.py ... --entry main`): a module without
`main` runs through program.py's, and a call's fix made in a module is verified through the call. `--fixinplace PATH`
runs `verify` from another checkout (a worktree of an older commit: "before" figures); the fixes are always this
checkout's.

`--as-scripts` verifies each program rewritten as a module-level script instead: `main()`'s body becomes top-level
code (its final `return X` becomes `result = X`, the `if __name__ == "__main__":` call goes), and `verify --entry
__main__` runs the whole file. The verdicts should be those of the programs as they are; a program whose `main()`
returns from inside a block is not rewritten and counted apart.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import subprocess
import sys
import tempfile
import textwrap
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fix_score  # noqa: E402

WORST = ("failed", "skipped", "changed", "verified")


def as_script(text: str) -> str | None:
    """`text` with `main()`'s body as top-level code in its place (see the module docstring), or None when it
    cannot be rewritten so."""
    tree = ast.parse(text)
    main = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "main"), None)
    if main is None or main.args.args or any(isinstance(n, ast.Return) for s in main.body[:-1] for n in ast.walk(s)):
        return None
    lines = text.splitlines()
    body = []
    for statement in main.body:
        segment = textwrap.dedent("\n".join(lines[statement.lineno - 1:statement.end_lineno]))
        if isinstance(statement, ast.Return):
            segment = "result = " + segment[len("return"):].strip() if statement.value is not None else ""
        body.append(segment)
    kept = []
    for node in tree.body:
        if node is main:
            continue
        calls_main = isinstance(node, (ast.If, ast.Expr)) and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "main" for n in ast.walk(node))
        if not calls_main:
            kept.append("\n".join(lines[node.lineno - 1 - len(getattr(node, "decorator_list", ())):node.end_lineno]))
    return "\n\n".join(kept + body) + "\n"


def verdict(case_dir: Path, checkout: Path, entry: str = "main") -> tuple[str, str]:
    """(worst status, its reason) of `verify *.py --entry ENTRY --unsafe-fixes` in `case_dir` (its top-level files:
    the modules a multi-file program imports run through program.py's ENTRY)."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(checkout))
    files = sorted(p.name for p in case_dir.glob("*.py"))  # program.py and the modules of a multi-file program
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "verify", *files, "--entry", entry,
                           "--unsafe-fixes", "--device", "cpu", "--format", "json", "--timeout", "120"],
                          cwd=case_dir, capture_output=True, text=True, env=env, timeout=1800)
    try:
        rows = json.loads(proc.stdout)["results"]
    except (ValueError, KeyError):
        return "none", (proc.stderr.strip().splitlines() or ["no output"])[-1]
    if not rows:
        return "none", "no result"
    worst = min(rows, key=lambda r: WORST.index(r["status"]) if r["status"] in WORST else 0)
    return worst["status"], worst["reason"]


def score(folder: Path, checkout: Path, verbose: bool, scripts: bool = False) -> Counter:
    """The tally of one set (see the module docstring); `scripts`: of its programs rewritten as scripts."""
    tally: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="verify_score_") as keep:
        scores = fix_score.score_set(folder, Path(keep), ("unsafe",))
        for s in scores:
            judged = s.outcomes.get("unsafe")
            if judged not in ("fixed", "wrong"):
                continue
            case = Path(keep) / folder.name / "original" / s.name
            if scripts:
                script = as_script((case / "program.py").read_text(encoding="utf-8"))
                if script is None:
                    tally["not rewritten as a script"] += 1
                    continue
                (case / "program.py").write_text(script, encoding="utf-8")
            status, reason = verdict(case, checkout, "__main__" if scripts else "main")
            right = judged == "fixed"
            if right and status == "verified":
                key = "proved"
            elif not right and status == "failed":
                key = "caught"
            elif not right and status == "verified":
                key = "false proof"
            else:
                key = f"{'right, not proved' if right else 'wrong, not caught'} ({status})"
            tally[key] += 1
            if verbose:
                print(f"  {s.name:48} fix {judged:6} verify {status:8} {reason[:110]}")
    return tally


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=["heldout"])
    parser.add_argument("--verbose", action="store_true", help="one line per judged fix")
    parser.add_argument("--fixinplace", type=Path, default=fix_score.REPO,
                        help="the checkout whose `verify` runs (default: this one)")
    parser.add_argument("--as-scripts", action="store_true",
                        help="verify the programs rewritten as module-level scripts (verify --entry __main__)")
    args = parser.parse_args(argv)
    for name in args.sets:
        folder = fix_score.SETS / name if (fix_score.SETS / name).is_dir() else Path(name)
        tally = score(folder, args.fixinplace.resolve(), args.verbose, args.as_scripts)
        right = sum(n for k, n in tally.items() if k == "proved" or k.startswith("right"))
        wrong = sum(n for k, n in tally.items() if k in ("caught", "false proof") or k.startswith("wrong"))
        print(f"== {name}: {right} right fixes, {wrong} wrong fixes (fix --unsafe-fixes, judged by running)")
        print(f"proved {tally['proved']}/{right}; caught {tally['caught']}/{wrong}; false proofs "
              f"{tally['false proof']}")
        for key in sorted(k for k in tally if k not in ("proved", "caught", "false proof")):
            print(f"  {key}: {tally[key]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
