"""Where the references verify could use disagree, measured on programs whose meaning a person wrote down.

    python bench/oracles.py [SET ...]

SET is a folder of bench/fixsets/ (default: `heldout dev check12`): programs with a `main()` that returns what
they compute, each with an `intended` program written by a person (the same computation without the hazard).
Each program's `main()` runs, in a child process per program (fixed seeds):

    plain          as it is (it usually raises)
    copies         with a private copy of every tensor autograd saves (`saved_tensors_hooks`, verify's reference)
    allow_mutation under `torch.autograd.graph.allow_mutation_on_saved_tensors()`

and each that runs is compared (verify's comparison, float tolerances by dtype) with the intended program. The
table counts, per set, how often each reference agrees with the intended program, and lists the programs where
`copies` and `allow_mutation` disagree with each other. Programs whose intended version changes what is computed
on purpose (an update moved after the backward) disagree with every reference: that is the program's author
choosing another meaning, not a wrong reference. Nothing here is a test; it prints figures for the docs.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SETS = REPO / "bench" / "fixsets"

CHILD = r"""
import importlib.util, json, os, random, sys
import torch
sys.path.insert(0, os.getcwd())
from fixinplace.verify.compare import compare, flatten
from fixinplace.verify.reference import saved_tensor_copies

def run(path, wrap):
    random.seed(0); torch.manual_seed(0)
    spec = importlib.util.spec_from_file_location("m_" + str(abs(hash((path, wrap)))), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    random.seed(0); torch.manual_seed(0)
    ctx = {"plain": None, "copies": saved_tensor_copies,
           "allow_mutation": torch.autograd.graph.allow_mutation_on_saved_tensors}[wrap]
    try:
        if ctx is None:
            return flatten(module.main()), ""
        with ctx():
            return flatten(module.main()), ""
    except Exception as e:
        return None, f"{type(e).__name__}: {str(e)[:120]}"

program, intended = sys.argv[1], sys.argv[2]
truth, error = run(intended, "plain")
out = {}
for mode in ("plain", "copies", "allow_mutation"):
    got, err = run(program, mode)
    if got is None:
        out[mode] = "raises"
    elif truth is None:
        out[mode] = "no intended"
    else:
        same, why, _ = compare(truth, got, "cpu")
        out[mode] = "agrees" if same else "differs"
print(json.dumps(out))
"""


def measure(case: Path) -> dict | None:
    intended = case / "intended.py"
    if not intended.exists():
        intended = case / "intended" / "program.py"
    if not (case / "program.py").exists() or not intended.exists():
        return None
    proc = subprocess.run([sys.executable, "-c", CHILD, str(case / "program.py"), str(intended)], cwd=case,
                          capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"})
    try:
        return json.loads(proc.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"error": (proc.stderr.strip().splitlines() or ["no output"])[-1][:160]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", default=["heldout", "dev", "check12"])
    args = parser.parse_args(argv)
    for name in args.sets:
        folder = SETS / name if (SETS / name).is_dir() else Path(name)
        counts: dict[str, Counter] = {m: Counter() for m in ("plain", "copies", "allow_mutation")}
        disagree = []
        total = 0
        for case in sorted(p for p in folder.iterdir() if p.is_dir()):
            label = json.loads((case / "case.json").read_text()).get("label", "") if (case / "case.json").exists() \
                else ""
            if label == "ok":
                continue
            result = measure(case)
            if result is None or "error" in result:
                continue
            total += 1
            for mode, verdict in result.items():
                counts[mode][verdict] += 1
            if result["copies"] != result["allow_mutation"]:
                disagree.append(f"  {case.name}: copies {result['copies']}, allow_mutation {result['allow_mutation']}")
        print(f"== {name}: {total} hazardous programs with an intended version")
        for mode, c in counts.items():
            print(f"  {mode:15} agrees {c['agrees']:3}  differs {c['differs']:3}  raises {c['raises']:3}")
        print("  copies and allow_mutation disagree on:" if disagree else "  copies and allow_mutation agree on all")
        print("\n".join(disagree))
    return 0


if __name__ == "__main__":
    sys.exit(main())
