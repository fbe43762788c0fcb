"""Write the CUDA overlay of the saved-tensor table (`fixinplace/data/saved_tensors.cuda.json`) from a table diff
measured on a GPU machine (`table_diff.py`: the table generated on CPU and on CUDA with the same torch).

    python bench/cuda/make_overlay.py [bench/cuda/results/h200_run7/results7.tar.gz]

For each `nn.Module` whose saves differ, each measured construction (its parameters, inputs, outputs, training)
whose saves differ keeps what CUDA saves in each of its results, per requires-grad configuration (`cuda`: the
construction as the CUDA table has it). For each op (function or method), each sample pattern measured on both
devices keeps what CUDA saves that CPU does not (`only.cuda`) and what CPU saves that CUDA does not (`only.cpu`),
with the dtype it was measured in (`dtype`: CUDA picks other kernels by dtype, so the analysis trusts an op's difference
fully only when it was measured in float32, the dtype of code that does not choose one). An op or module whose
`autocast` differs (whether `torch.autocast("cuda")`, float16, keeps cast copies of its float32 inputs, against
`torch.autocast("cpu")`, bfloat16) keeps CUDA's value as `autocast`. The analysis adds those
saves to the CPU table's, marked with their device, so `check --device` can report a hazard that exists on one
device only. Nothing here is typed by hand: rerun this script on the diff of a new GPU run.
"""

from __future__ import annotations

import argparse
import json
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "bench" / "cuda" / "results" / "h200_run12" / "results7.tar.gz"
OUT = ROOT / "fixinplace" / "data" / "saved_tensors.cuda.json"


def read_diff(source: Path) -> tuple[dict, str, dict]:
    """The table diff (JSON) in `source` (a results archive, or the JSON itself with `dtypes_cuda.json` and
    `env.txt` beside it), the environment it names, and the dtype each OpInfo was measured in on CUDA."""
    if source.suffix == ".json":
        beside = {name: source.with_name(name) for name in ("env.txt", "dtypes_cuda.json")}
        env = beside["env.txt"].read_text(encoding="utf-8") if beside["env.txt"].is_file() else ""
        dtypes = json.loads(beside["dtypes_cuda.json"].read_text()) if beside["dtypes_cuda.json"].is_file() else {}
        return json.loads(source.read_text(encoding="utf-8")), env, dtypes
    with tarfile.open(source) as archive:
        names = archive.getnames()

        def member(suffix: str) -> bytes | None:
            name = next((n for n in names if n.endswith(suffix)), None)
            return archive.extractfile(name).read() if name else None

        diff = json.loads(member("/table_diff.json"))
        env = (member("/env.txt") or b"").decode("utf-8", "replace")
        dtypes = json.loads(member("/dtypes_cuda.json") or b"{}")
    return diff, env, dtypes


def _results(sample: dict, side: str) -> list[dict]:
    """{config: sorted items} of each result the pattern has on one side ("a": CPU, "b": CUDA): one for a pattern
    measured alike in every dtype, several where dtypes take other kernels (the CPU's float32 and float64 LSTM)."""
    if "saved" in sample:
        return [{cfg: sorted(s[side]) for cfg, s in sorted(sample["saved"].items())}]
    return [{cfg: sorted(items) for cfg, items in sorted(r.get("saved", {}).items())} for r in sample.get(side, ())]


def _only(saved: dict) -> dict:
    """Per requires-grad configuration that differs: what CUDA alone saves and what the CPU alone saves."""
    return {cfg: {"cuda": sorted(s["only_b"]), "cpu": sorted(s["only_a"])}
            for cfg, s in sorted(saved.items()) if s["only_a"] or s["only_b"]}


def _ops(diff: dict, dtypes: dict) -> dict:
    """The ops whose samples, measured on both devices, save otherwise on CUDA (samples that ran on one device
    only say what that device can run, not what it saves, and are left out)."""
    ops = {}
    for name, entry in sorted(diff["ops"].items()):
        variants = []
        for variant in entry.get("variants", ()):
            only = _only(variant.get("saved", {}))
            if only:
                opinfo = name.removeprefix("torch.").removeprefix("Tensor.")
                variants.append({**variant["pattern"], "dtype": dtypes.get(opinfo), "only": only})
        if variants:
            ops[name] = {"variants": variants}
        if "autocast" in entry.get("fields", {}):
            ops.setdefault(name, {})["autocast"] = entry["fields"]["autocast"]["b"]
    return ops


def overlay(diff: dict, source: str, gpu: str, dtypes: dict | None = None) -> dict:
    """The overlay of one diff (CPU as table a, CUDA as table b); `dtypes`: the dtype each OpInfo was measured in
    on CUDA (`table_device.py --dtypes-only`)."""
    assert diff["devices"] == ["cpu", "cuda"], diff["devices"]
    modules = {}
    for name, entry in sorted(diff["modules"].items()):
        samples = []
        for sample in entry.get("samples", ()):
            # The construction as CUDA measured it, result by result, wherever that differs from the CPU's results
            # (also where only how often an item is kept differs: certain on one device, not on the other).
            cuda = _results(sample, "b")
            if cuda != _results(sample, "a"):
                samples.append({**sample["pattern"], "cuda": cuda})
        if samples:
            modules[name] = {"samples": samples}
        if "autocast" in entry.get("fields", {}):
            modules.setdefault(name, {})["autocast"] = entry["fields"]["autocast"]["b"]
    return {
        "format": 2,
        "device": "cuda",
        "base_device": "cpu",
        "torch_version": diff["torch"][1],
        "measured_on": gpu,
        "generator": f"bench/cuda/make_overlay.py {source}",
        "modules": modules,
        "ops": _ops(diff, dtypes or {}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", nargs="?", default=str(DEFAULT), help="a results archive or a table_diff.json")
    parser.add_argument("--output", default=str(OUT), help=f"where to write it (default: {OUT.relative_to(ROOT)})")
    args = parser.parse_args()
    source = Path(args.source)
    diff, env, dtypes = read_diff(source)
    # nvidia-smi's query line: "NVIDIA H200, 580.159.04, 143771 MiB, 9.0"
    gpu = next((line.split(",")[0].strip() for line in env.splitlines()
                if line.startswith("NVIDIA") and line.count(",") >= 2), "a CUDA GPU")
    shown = source.resolve().relative_to(ROOT) if source.resolve().is_relative_to(ROOT) else source
    data = overlay(diff, str(shown), gpu, dtypes)
    Path(args.output).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"{args.output}: {len(data['modules'])} modules ({', '.join(data['modules'])}), "
          f"{len(data['ops'])} ops ({', '.join(data['ops'])}), "
          f"torch {data['torch_version']}, {gpu}")


if __name__ == "__main__":
    main()
