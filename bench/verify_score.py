"""How right `fixinplace verify` is, on program sets whose fixes are judged by running them.

    python bench/verify_score.py [SET ...] [--verbose] [--fixinplace PATH]

SET is a folder of bench/fixsets/ (`heldout`, `dev`, `check12`, `realbugs`) or a path; default `heldout`. For each
set, `bench/fix_score.py` applies `fix --apply --unsafe-fixes` to copies of the programs and judges every fix by
running the patched program against the intended one (`fixed`: it returns what intended.py returns; `wrong`: it
runs and returns something else). Then `fixinplace verify program.py --entry main --unsafe-fixes --device cpu`
runs on each original whose fix is judged, and its verdict (the worst of its results: failed, skipped, changed,
verified) is tallied against the judgement:

    proved         a right fix, verified
    caught         a wrong fix, failed
    false proof    a wrong fix, verified (must be 0)
    right, not proved   a right fix called failed, skipped or changed (each counted)
    wrong, not caught   a wrong fix skipped or changed

Only `program.py` is verified (in a multi-file program, fixes in its other files are not). `--fixinplace PATH`
runs `verify` from another checkout (a worktree of an older commit: "before" figures); the fixes are always this
checkout's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fix_score  # noqa: E402

WORST = ("failed", "skipped", "changed", "verified")


def verdict(case_dir: Path, checkout: Path) -> tuple[str, str]:
    """(worst status, its reason) of `verify program.py --entry main --unsafe-fixes` in `case_dir`."""
    env = dict(os.environ, NO_COLOR="1", PYTHONPATH=str(checkout))
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "verify", "program.py", "--entry", "main",
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


def score(folder: Path, checkout: Path, verbose: bool) -> Counter:
    """The tally of one set (see the module docstring)."""
    tally: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="verify_score_") as keep:
        scores = fix_score.score_set(folder, Path(keep), ("unsafe",))
        for s in scores:
            judged = s.outcomes.get("unsafe")
            if judged not in ("fixed", "wrong"):
                continue
            status, reason = verdict(Path(keep) / folder.name / "original" / s.name, checkout)
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
    args = parser.parse_args(argv)
    for name in args.sets:
        folder = fix_score.SETS / name if (fix_score.SETS / name).is_dir() else Path(name)
        tally = score(folder, args.fixinplace.resolve(), args.verbose)
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
