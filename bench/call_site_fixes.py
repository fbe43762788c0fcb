"""How many hazards reported at a call (the write in another file of the program) get a fix at their write.

    python bench/call_site_fixes.py [SET ...]     (default: realbugs, realbugs2; a name under bench/fixsets or a path)

For each set it runs `fixinplace check --format json` on every program folder (as `check .` in it: the program's
files are one run, as `fix --apply .` takes them) and prints, over the errors and warnings whose message starts
"this call runs" / "this call may run": how many there are, how many `check` marks with a safe fix, how many with
only an unsafe one, and how many get none, each of the last listed with its program and the first words of its
message. The fix `check` shows is the one `fix --apply .` makes (`fixinplace.fixable`). Nothing is written.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SETS = ROOT / "bench" / "fixsets"


def _call_sites(program: Path) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "check", "--no-cache", "--format", "json", "."],
                          cwd=program, capture_output=True, text=True, timeout=600)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{program}: check failed: {proc.stderr.strip()[-300:]}")
    return [d for d in json.loads(proc.stdout)["diagnostics"] if d["severity"] in ("error", "warning")
            and d["message"].startswith(("this call runs", "this call may run"))]


def main(argv: list[str]) -> int:
    names = argv or ["realbugs", "realbugs2"]
    for name in names:
        folder = Path(name) if Path(name).is_dir() else SETS / name
        counts = {"safe": 0, "unsafe": 0, "none": 0}
        missing = []
        for program in sorted(p for p in folder.iterdir() if (p / "program.py").is_file()):
            for d in _call_sites(program):
                kind = d["fix"]["applicability"] if d.get("fix") else "none"
                counts[kind] += 1
                if kind == "none":
                    missing.append(f"  {program.name}/{d['path']}:{d['line']} {d['code']} {d['message'][:90]}")
        total = sum(counts.values())
        print(f"== {folder.name}: {total} call-site hazards; fixed safely {counts['safe']}, only unsafely "
              f"{counts['unsafe']}, no fix {counts['none']}")
        print("\n".join(missing))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
