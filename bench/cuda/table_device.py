"""The saved-tensor table of `python -m fixinplace.tables`, measured on another device (issue 16).

    python bench/cuda/table_device.py --device cuda --output cuda.json [--dtypes-output dtypes_cuda.json] [-v]
    python bench/cuda/table_device.py --device cpu  --output cpu.json     # must equal `python -m fixinplace.tables`
    python bench/cuda/table_device.py --device cuda --part ops  --output a.json   # two halves, run side by side,
    python bench/cuda/table_device.py --device cuda --part rest --output b.json   # then:
    python bench/cuda/table_device.py --merge a.json b.json --output cuda.json

`fixinplace.tables` has no device option: it asks torch's OpInfo and ModuleInfo databases for samples on "cpu"
(`opinfo.reference_inputs("cpu", ...)`, `opinfo.sample_inputs("cpu", ...)`, `opinfo.supported_dtypes("cpu")`,
`module_info.module_inputs_func(mi, device="cpu", ...)`) and makes its own tensors and modules with plain
factories (`torch.rand(...)`, `cls(...)`). This script changes nothing in fixinplace/: it wraps those database
methods of every OpInfo / ModuleInfo instance so that the device argument becomes --device, sets
`torch.set_default_device(--device)` so that the generator's own factories and module constructors land there,
and then calls `fixinplace.tables.generate()` unchanged. The table's "device" field is set to --device.

`--part ops` measures only the op tables (ops, functions, methods: most of the time), `--part rest` only the in-place
tables, modules and factories (the other measuring functions are replaced by empty ones for that run); `--merge`
puts two halves together (stats summed, `opinfos_total` kept). On CPU the merged halves are byte-identical to
`python -m fixinplace.tables` (checked with torch 2.13).

With --dtypes-output it also writes, per OpInfo, the dtype the generator picks on that device (`_pick_dtype` of
`supported_dtypes(device)`): float64 where supported, else float32, ...; the CPU/CUDA diff needs it, because an op
measured in float32 on one device and float64 on the other can take another kernel.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402

import fixinplace.tables as T  # noqa: E402


def retarget_databases(device: str) -> tuple[int, int]:
    """Make every OpInfo and ModuleInfo produce samples (and report dtypes) for `device` whatever device it is
    asked for. Returns (OpInfos wrapped, ModuleInfos wrapped)."""
    from torch.testing._internal.common_methods_invocations import op_db
    from torch.testing._internal.common_modules import module_db

    for o in op_db:
        for name in ("sample_inputs", "reference_inputs"):
            orig = getattr(o, name)

            def wrapped(_device, *args, _orig=orig, **kwargs):
                return _orig(device, *args, **kwargs)

            object.__setattr__(o, name, wrapped)
        orig_dt = o.supported_dtypes
        object.__setattr__(o, "supported_dtypes", lambda _device_type, _orig=orig_dt: _orig(device))
    for mi in module_db:
        orig_f = mi.module_inputs_func

        def wrapped_m(module_info, *args, _orig=orig_f, **kwargs):
            if args:  # (device, dtype, ...) positionally
                args = (device,) + tuple(args[1:])
            else:
                kwargs["device"] = device
            return _orig(module_info, *args, **kwargs)

        mi.module_inputs_func = wrapped_m
    return len(op_db), len(module_db)


def picked_dtypes(device: str) -> dict[str, str | None]:
    from torch.testing._internal.common_methods_invocations import op_db

    out = {}
    for o in op_db:
        dt = T._pick_dtype(o.supported_dtypes(device))
        out[T._opinfo_name(o)] = None if dt is None else str(dt).replace("torch.", "")
    return out


class _CpuFirst(torch.overrides.TorchFunctionMode):
    """Runs every torch call that has a CUDA tensor argument on CPU copies first, and raises what the CPU run
    raises without launching the CUDA kernel. Used only around `_try_calls` (the simple tries, with made-up
    arguments such as a tensor of values in [0.5, 1.5], of callables op_db lacks): on CPU a bad value raises a
    Python error, on CUDA some kernels fail a device-side assertion instead (`torch.bernoulli(x)` with x > 1:
    `Assertion 0 <= p4 && p4 <= 1 failed`, seen in the first GPU run), which breaks the CUDA context for the rest
    of the process and would empty the table. The consequence: a simple try is kept on CUDA only if it also runs
    on CPU. Counts are kept in `vetoed` / `mirrored`."""

    device_type = "cuda"

    def __init__(self):
        super().__init__()
        self.vetoed: dict[str, int] = {}
        self.mirrored = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        from torch.utils._pytree import tree_flatten, tree_map

        kwargs = kwargs or {}
        leaves, _ = tree_flatten((args, kwargs))
        dev = self.device_type
        if any(isinstance(t, torch.Tensor) and t.device.type == dev for t in leaves):
            self.mirrored += 1
            to_cpu = lambda t: t.detach().cpu().clone() if isinstance(t, torch.Tensor) and t.device.type == dev else t
            try:
                func(*tree_map(to_cpu, args), **tree_map(to_cpu, kwargs))
            except Exception:
                name = getattr(func, "__qualname__", None) or getattr(func, "__name__", str(func))
                self.vetoed[name] = self.vetoed.get(name, 0) + 1
                raise
        return func(*args, **kwargs)


GUARD_STATS: dict = {}


def guard_try_calls() -> None:
    """Wrap fixinplace.tables._try_calls in _CpuFirst (see its docstring)."""
    orig = T._try_calls

    def guarded(*args, **kwargs):
        mode = _CpuFirst()
        with mode:
            out = orig(*args, **kwargs)
        GUARD_STATS.update(mirrored=mode.mirrored, vetoed=dict(sorted(mode.vetoed.items())))
        return out

    T._try_calls = guarded


def seed_cuda_too() -> None:
    """Make the generator's seeding (`fixinplace.tables._seed_cpu`, used for each sample since the generator
    stopped calling torch.manual_seed, commit 5470752) seed the CUDA generators as well, as torch.manual_seed did:
    samples made on CUDA draw from the CUDA generator. CUDA is initialised first, so that
    `torch.cuda.manual_seed_all` runs at once instead of queueing a call (which formats the stack each time)."""
    if not hasattr(T, "_seed_cpu"):  # an older generator: it calls torch.manual_seed, which seeds CUDA too
        return
    torch.cuda.init()
    orig = T._seed_cpu

    def seed(value: int) -> None:
        orig(value)
        torch.cuda.manual_seed_all(value)

    T._seed_cpu = seed


def only_part(part: str) -> None:
    """Replace the measuring functions of the other part with empty ones."""
    if part == "ops":
        T._measure_inplace_methods = lambda *a, **k: {}
        T._measure_inplace_functions = lambda *a, **k: {}
        T._measure_modules = lambda *a, **k: ({}, [])
        T._measure_factories = lambda *a, **k: {}
    elif part == "rest":
        T._measure_ops = lambda *a, **k: ({}, {}, {}, [])
    elif part != "all":
        raise SystemExit(f"unknown part {part!r}")


def merge(paths: list[Path]) -> dict:
    tables = [json.loads(p.read_text()) for p in paths]
    out = dict(tables[0])
    parts = {t.get("part") for t in tables}
    if parts != {"ops", "rest"}:
        raise SystemExit(f"need one ops part and one rest part, got {sorted(map(str, parts))}")
    ops_t = next(t for t in tables if t["part"] == "ops")
    rest_t = next(t for t in tables if t["part"] == "rest")
    for key in ("ops", "functions", "methods"):
        out[key] = ops_t[key]
    for key in ("inplace_methods", "inplace_functions", "modules", "factories"):
        out[key] = rest_t[key]
    out["skipped"] = {"opinfos": ops_t["skipped"]["opinfos"], "modules": rest_t["skipped"]["modules"]}
    stats: dict = {}
    for t in tables:
        for k, v in t["stats"].items():
            stats[k] = max(stats.get(k, 0), v) if k == "opinfos_total" else stats.get(k, 0) + v
    out["stats"] = dict(sorted(stats.items()))
    out.pop("part", None)
    out.pop("seconds", None)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--output", type=Path)
    ap.add_argument("--dtypes-output", type=Path)
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--part", default="all", choices=("all", "ops", "rest"))
    ap.add_argument("--merge", type=Path, nargs=2, metavar="PART")
    ap.add_argument("--dtypes-only", action="store_true", help="write --dtypes-output and stop")
    ap.add_argument("--autocast-dtype", default=None, choices=("float16", "bfloat16"),
                    help="what the measured autocast casts to (default: float16 on CUDA, as torch.autocast('cuda'))")
    ns = ap.parse_args()
    if ns.dtypes_only:
        ns.dtypes_output.write_text(json.dumps(picked_dtypes(ns.device), indent=1, sort_keys=True) + "\n")
        print(f"wrote {ns.dtypes_output}")
        return 0
    if ns.merge:
        table = merge(ns.merge)
        ns.output.write_text(T.dumps(table))
        print(f"wrote {ns.output} (merged {ns.merge[0]} and {ns.merge[1]})")
        return 0
    if ns.device.startswith("cuda") and not torch.cuda.is_available():
        print("CUDA is not available", file=sys.stderr)
        return 2
    t0 = time.time()
    if ns.dtypes_output:
        ns.dtypes_output.write_text(json.dumps(picked_dtypes(ns.device), indent=1, sort_keys=True) + "\n")
    n_op, n_mod = retarget_databases(ns.device)
    only_part(ns.part)
    if ns.device.startswith("cuda"):
        guard_try_calls()
        seed_cuda_too()
    torch.set_default_device(ns.device)
    # the `autocast` field of ops and modules: this device's autocast, in its default dtype unless told
    T.AUTOCAST_DEVICE = torch.device(ns.device).type
    T.AUTOCAST_DTYPE = getattr(torch, ns.autocast_dtype or ("bfloat16" if T.AUTOCAST_DEVICE == "cpu" else "float16"))
    table = T.generate(verbose=ns.verbose)
    table["device"] = ns.device
    if ns.part != "all":
        table["part"] = ns.part
    if ns.device != "cpu":
        table["generator"] = f"bench/cuda/table_device.py --device {ns.device}"
    if GUARD_STATS:
        print(f"simple tries mirrored on CPU first: {GUARD_STATS.get('mirrored')} torch calls; vetoed (raised on "
              f"CPU, not run on CUDA): {GUARD_STATS.get('vetoed')}", file=sys.stderr)
    if ns.device.startswith("cuda"):
        # a device-side assert would make every later CUDA call fail (and silently empty the table): check
        try:
            torch.cuda.synchronize()
            ok = float((torch.ones(2, device=ns.device) * 2).sum().item()) == 4.0
        except Exception as e:  # pragma: no cover
            ok = False
            print(f"CUDA context broken after generation: {e}", file=sys.stderr)
        print(f"CUDA context healthy after generation: {ok}", file=sys.stderr)
    text = T.dumps(table)
    ns.output.parent.mkdir(parents=True, exist_ok=True)
    ns.output.write_text(text)
    print(f"wrote {ns.output} ({len(text) // 1024} KiB, {time.time() - t0:.1f}s; {n_op} OpInfos and {n_mod} "
          f"ModuleInfos retargeted to {ns.device}; torch {torch.__version__})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
