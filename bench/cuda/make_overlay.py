"""Write the CUDA overlay of the saved-tensor table (`fixinplace/data/saved_tensors.cuda.json`) from a table diff
measured on a GPU machine (`table_diff.py`: the table generated on CPU and on CUDA with the same torch).

    python bench/cuda/make_overlay.py [bench/cuda/results/h200_run4/results4.tar.gz]

For each `nn.Module` whose saves differ, each measured construction (its parameters, inputs, outputs, training)
and each requires-grad configuration keep what CUDA saves that CPU does not (`cuda`) and what CPU saves that CUDA
does not (`cpu`). The analysis adds those saves to the CPU table's, marked with their device, so `check --device`
can report a hazard that exists on one device only. Nothing here is typed by hand: rerun this script on the diff of
a new GPU run.
"""

from __future__ import annotations

import argparse
import json
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "bench" / "cuda" / "results" / "h200_run4" / "results4.tar.gz"
OUT = ROOT / "fixinplace" / "data" / "saved_tensors.cuda.json"


def read_diff(source: Path) -> tuple[dict, str]:
    """The table diff (JSON) in `source` (a results archive or the JSON itself), and the environment it names."""
    if source.suffix == ".json":
        return json.loads(source.read_text(encoding="utf-8")), ""
    with tarfile.open(source) as archive:
        names = archive.getnames()
        diff = json.load(archive.extractfile(next(n for n in names if n.endswith("/table_diff.json"))))
        env_name = next((n for n in names if n.endswith("/env.txt")), None)
        env = archive.extractfile(env_name).read().decode("utf-8", "replace") if env_name else ""
    return diff, env


def overlay(diff: dict, source: str, gpu: str) -> dict:
    """The overlay of one diff (CPU as table a, CUDA as table b)."""
    assert diff["devices"] == ["cpu", "cuda"], diff["devices"]
    modules = {}
    for name, entry in sorted(diff["modules"].items()):
        samples = []
        for sample in entry["samples"]:
            only = {cfg: {"cuda": sorted(saved["only_b"]), "cpu": sorted(saved["only_a"])}
                    for cfg, saved in sorted(sample["saved"].items()) if saved["only_a"] or saved["only_b"]}
            if only:
                samples.append({**sample["pattern"], "only": only})
        if samples:
            modules[name] = {"samples": samples}
    return {
        "format": 1,
        "device": "cuda",
        "base_device": "cpu",
        "torch_version": diff["torch"][1],
        "measured_on": gpu,
        "generator": f"bench/cuda/make_overlay.py {source}",
        "modules": modules,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", default=str(DEFAULT), help="a results archive or a table_diff.json")
    parser.add_argument("--output", default=str(OUT), help=f"where to write it (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args()
    source = Path(args.source)
    diff, env = read_diff(source)
    # nvidia-smi's query line: "NVIDIA H200, 580.159.04, 143771 MiB, 9.0"
    gpu = next((line.split(",")[0].strip() for line in env.splitlines()
                if line.startswith("NVIDIA") and line.count(",") >= 2), "a CUDA GPU")
    data = overlay(diff, str(source.resolve().relative_to(ROOT)) if source.resolve().is_relative_to(ROOT) else str(source), gpu)
    Path(args.output).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{args.output}: {len(data['modules'])} modules ({', '.join(data['modules'])}), "
          f"torch {data['torch_version']}, {gpu}")


if __name__ == "__main__":
    main()
