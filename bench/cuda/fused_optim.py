"""Do optimizer steps bump the version counters of parameters (CPU and CUDA; default, foreach, fused)? (issue 16)

    python bench/cuda/fused_optim.py --output fused.json [--markdown fused.md] [--devices cpu,cuda]

The FACTS.md experiment (the GAN pattern): forward with the current weights (autograd saves them), then
`optimizer.step()`, then the backward of that forward. When the step bumps the parameters' version counters,
backward raises ("modified by an inplace operation"); when it does not (fused optimizers on CPU, torch 2.13),
backward silently uses the stepped weights. For each optimizer x implementation x device this records:

* `ops`: the torch functions the step called (a TorchFunctionMode: `_fused_adam_`, `_foreach_add_`, ...);
* `version_delta`: how much each parameter's `_version` moved during the step (min/max over the parameters);
* `backward`: `raises` or `ok`;
* `max_grad_error`: when backward did not raise, the largest abs difference between the gradients it gave (of
  the input and of every parameter) and the intended ones (the same forward/backward on a deep copy of the model
  taken before the step, i.e. what `allow_mutation_on_saved_tensors` would give); 0 means harmless;
* `trace`: what `fixinplace.trace()` reports when the same experiment runs under it (kinds, ops, and whether the
  backward raised under the tracer), or the exception that escaped the traced run (`trace_error`);
* `trace_safe_frame`: the same with `fixinplace.trace.tracer.user_frame` replaced, for that run only, by a version
  that returns None instead of raising ValueError on a shallow stack (see on_cuda.py: on CUDA the backward's
  unpack hooks run on autograd's device thread and `sys._getframe(3)` raises there). fixinplace/ is not edited.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch  # noqa: E402
from torch import nn  # noqa: E402
from torch.overrides import TorchFunctionMode  # noqa: E402

OPTIMIZERS = {
    "SGD": (torch.optim.SGD, dict(lr=0.1, momentum=0.9)),
    "Adam": (torch.optim.Adam, dict(lr=0.1)),
    "AdamW": (torch.optim.AdamW, dict(lr=0.1)),
    "Adagrad": (torch.optim.Adagrad, dict(lr=0.1)),
    "RMSprop": (torch.optim.RMSprop, dict(lr=0.1)),
    "Adamax": (torch.optim.Adamax, dict(lr=0.1)),
}
IMPLS = {"default": {}, "foreach=False": {"foreach": False}, "foreach=True": {"foreach": True},
         "fused=True": {"fused": True}}


class _Ops(TorchFunctionMode):
    def __init__(self):
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        n = getattr(func, "__name__", str(func))
        if n not in self.names:
            self.names.append(n)
        return func(*args, **(kwargs or {}))


def _model(device):
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)).to(device)


@contextlib.contextmanager
def safe_user_frame(on: bool):
    if not on:
        yield
        return
    import fixinplace.trace.tracer as tracer

    orig = tracer.user_frame

    def safe(depth=2):
        try:
            return orig(depth + 1)
        except ValueError:
            return None

    tracer.user_frame = safe
    try:
        yield
    finally:
        tracer.user_frame = orig


def traced_experiment(opt_name: str, impl: str, device: str, safe: bool) -> dict:
    try:
        with safe_user_frame(safe):
            t = experiment(opt_name, impl, device, traced=True)
        return {"findings": t.get("trace"), "backward": t.get("backward")}
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"}


def experiment(opt_name: str, impl: str, device: str, traced: bool = False) -> dict:
    cls, kw = OPTIMIZERS[opt_name]
    model = _model(device)
    try:
        opt = cls(model.parameters(), **kw, **IMPLS[impl])
    except Exception as e:
        return {"error": f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"}
    g = torch.Generator().manual_seed(1)
    x0 = torch.randn(32, 8, generator=g).to(device)
    x = torch.randn(32, 8, generator=g).to(device)
    model(x0).pow(2).sum().backward()  # grads for the step
    before = copy.deepcopy(model)
    res: dict = {}
    ctx = None
    if traced:
        import fixinplace

        ctx = fixinplace.trace(report=False)
        ctx.__enter__()
    try:
        xi = x.clone().requires_grad_(True)
        loss = model(xi).pow(2).sum()  # saves the current weights (and the activations)
        versions = [p._version for p in model.parameters()]
        mode = _Ops()
        try:
            with mode:
                opt.step()
        except Exception as e:
            res["step_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
            return res
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        res["ops"] = [n for n in mode.names if n not in ("__get__", "__set__")]
        deltas = [p._version - v for p, v in zip(model.parameters(), versions)]
        res["version_delta"] = [min(deltas), max(deltas)]
        res["weights_changed"] = any(not torch.equal(p, q) for p, q in zip(model.parameters(), before.parameters()))
        opt.zero_grad(set_to_none=True)
        try:
            loss.backward()
            res["backward"] = "ok"
        except RuntimeError as e:
            msg = str(e)
            res["backward"] = "raises" if "modified by an inplace operation" in msg or "inplace" in msg else \
                "error: " + msg.splitlines()[0][:200]
            res["backward_message"] = msg.splitlines()[0][:300]
    finally:
        if ctx is not None:
            ctx.__exit__(None, None, None)
            res["trace"] = [{"kind": f.get("kind"), "mutation": (f.get("mutation") or {}).get("op"),
                             "saved_by": (f.get("saved_by") or {}).get("op"),
                             "versions": [f["tensor"]["saved_version"], f["tensor"]["version"]]}
                            for f in (fd.to_json() for fd in ctx.findings)]
    if res.get("backward") == "ok":
        xr = x.clone().requires_grad_(True)
        before.zero_grad(set_to_none=True)
        before(xr).pow(2).sum().backward()
        errs = [float((xi.grad - xr.grad).abs().max())]
        for p, q in zip(model.parameters(), before.parameters()):
            if p.grad is not None and q.grad is not None:
                errs.append(float((p.grad - q.grad).abs().max()))
        res["max_grad_error"] = max(errs)
        res["max_ref_grad"] = max([float(xr.grad.abs().max())] + [float(q.grad.abs().max()) for q in before.parameters()])
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", type=Path, required=True)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--devices", default=None)
    ns = ap.parse_args()
    devices = ns.devices.split(",") if ns.devices else (["cpu", "cuda"] if torch.cuda.is_available() else ["cpu"])
    t0 = time.time()
    out: dict = {"torch": torch.__version__, "cuda": torch.version.cuda,
                 "gpu": torch.cuda.get_device_name() if torch.cuda.is_available() else None, "results": {}}
    for device in devices:
        for opt_name in OPTIMIZERS:
            for impl in IMPLS:
                key = f"{device} {opt_name} {impl}"
                r = experiment(opt_name, impl, device)
                if "error" not in r and "step_error" not in r:
                    r["trace"] = traced_experiment(opt_name, impl, device, safe=False)
                    r["trace_safe_frame"] = traced_experiment(opt_name, impl, device, safe=True)
                out["results"][key] = r
    out["seconds"] = round(time.time() - t0, 1)
    ns.output.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    L = [f"# Optimizer steps between forward and backward (torch {out['torch']}, CUDA {out['cuda']}, "
         f"{out['gpu']})", "",
         "| device | optimizer | impl | step ops | version delta | backward | max grad error (max ref grad) |"
         " trace finds (backward under trace) | with safe user_frame |",
         "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for key, r in out["results"].items():
        device, opt_name, impl = key.split(" ", 2)
        if "error" in r or "step_error" in r:
            L.append(f"| {device} | {opt_name} | {impl} | {r.get('error') or r.get('step_error')} | | | | | |")
            continue
        ops = ", ".join(o for o in r["ops"] if o.startswith("_f") or o.endswith("_"))[:80]
        err = f"{r['max_grad_error']:.4g} ({r['max_ref_grad']:.3g})" if "max_grad_error" in r else ""

        def tr(t):
            if not t:
                return ""
            if "error" in t:
                return "ERROR " + t["error"]
            found = ", ".join(sorted({f"{f['kind']} ({f['mutation']})" for f in (t.get("findings") or [])}))
            return f"{found or 'nothing'} ({t.get('backward')})"

        L.append(f"| {device} | {opt_name} | {impl} | {ops} | {r['version_delta']} | {r['backward']} | {err} | "
                 f"{tr(r.get('trace'))} | {tr(r.get('trace_safe_frame'))} |")
    md = "\n".join(L) + "\n"
    if ns.markdown:
        ns.markdown.write_text(md)
    print(md)
    print(f"done in {out['seconds']}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
