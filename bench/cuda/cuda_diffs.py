"""Why some fixes verify on CPU and fail on CUDA (issue 16, GPU run 2): dropout masks and fixture 33.

    python bench/cuda/cuda_diffs.py --output cuda_diffs.json

GPU run 2 found three rewrites that `fixinplace verify --device cuda` fails and `--device cpu` verifies:
fixtures/fix/43 (nn.Dropout(inplace=True)), fixtures/fix/44 (F.dropout(inplace=True)), fixtures/check/058
(dropout inplace after relu), and, with `--entry main`, fixtures/fix/33 (`logits -= logits.amax(...)`). This script
measures, on each device:

1. dropout: with the same seed, does `F.dropout(x, inplace=True)` draw the same mask as `F.dropout(x)`, and
   `nn.Dropout(inplace=True)` as `nn.Dropout()`? Which aten ops each calls (a TorchDispatchMode).
2. the fixtures: each fixture's before.py run under `torch.autograd.graph.allow_mutation_on_saved_tensors()` (verify's
   reference) and after.py run plainly, both seeded with 0 and CUDA as the default device (as verify does, with
   `torch.use_deterministic_algorithms(True, warn_only=True)`), and the largest difference per returned key.
3. fixture 33's `stable_softmax`: the gradient of w from the original under allow_mutation, from the rewrite, and
   from `torch.softmax` (what both compute), in float32 and float64.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import warnings
from pathlib import Path

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils._python_dispatch import TorchDispatchMode

ROOT = Path(__file__).resolve().parents[2]


class _Aten(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops: list[str] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func.overloadpacket.__name__))
        return func(*args, **(kwargs or {}))


def dropout_masks(device: str) -> dict:
    out = {}
    torch.manual_seed(0)
    x = torch.randn(64, 64, device=device) + 3.0  # no zeros: the mask is where the result is 0
    cases = {
        "F.dropout": (lambda t: F.dropout(t, 0.3, True, inplace=True), lambda t: F.dropout(t, 0.3, True)),
        "nn.Dropout": (lambda t: nn.Dropout(0.3, inplace=True)(t), lambda t: nn.Dropout(0.3)(t)),
        "F.dropout2d": (lambda t: F.dropout2d(t.view(4, 16, 8, 8), 0.3, True, inplace=True),
                        lambda t: F.dropout2d(t.view(4, 16, 8, 8), 0.3, True)),
    }
    for name, (inplace, plain) in cases.items():
        torch.manual_seed(1)
        a = inplace(x.clone())
        torch.manual_seed(1)
        b = plain(x.clone())
        m1, m2 = _Aten(), _Aten()  # the ops, in separate runs (a dispatch mode may change the path taken)
        with m1:
            inplace(x.clone())
        with m2:
            plain(x.clone())
        same_mask = bool(torch.equal(a == 0, b == 0))
        out[name] = {"same_mask": same_mask, "same_values": bool(torch.equal(a, b)),
                     "kept_fraction": [float((a != 0).float().mean()), float((b != 0).float().mean())],
                     "aten_inplace": m1.ops, "aten_out_of_place": m2.ops}
    return out


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _diff(a, b) -> dict:
    out = {}
    for k in a:
        x, y = a[k], b.get(k)
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            out[k] = float((x.detach().double() - y.detach().double()).abs().max())
    return out


def fixtures(device: str) -> dict:
    pairs = {
        "fix/33": ROOT / "fixtures/fix/33_augassign_out_of_place_self_referential_amax",
        "fix/43": ROOT / "fixtures/fix/43_remove_inplace_sequential_chain",
        "fix/44": ROOT / "fixtures/fix/44_remove_inplace_functional_dropout",
    }
    out = {}
    prev = torch.get_default_device()
    for key, folder in pairs.items():
        row = {}
        for det in (False, True):
            torch.set_default_device(device)
            torch.use_deterministic_algorithms(det, warn_only=True)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    before = _load(folder / "before.py", f"b{key.replace('/', '_')}")
                    after = _load(folder / "after.py", f"a{key.replace('/', '_')}")
                    torch.manual_seed(0)
                    with torch.autograd.graph.allow_mutation_on_saved_tensors():
                        ref = before.main()
                    torch.manual_seed(0)
                    new = after.main()
                    torch.manual_seed(0)
                    new2 = after.main()
                row["deterministic" if det else "default"] = {
                    "ref_vs_patched": _diff(ref, new), "patched_vs_patched_again": _diff(new, new2)}
            except Exception as e:
                row["deterministic" if det else "default"] = {"error": f"{type(e).__name__}: {e}"[:300]}
            finally:
                torch.use_deterministic_algorithms(False)
                torch.set_default_device(prev)
        out[key] = row
    return out


def amax_fixture(device: str) -> dict:
    out = {}
    for dtype in (torch.float32, torch.float64):
        torch.manual_seed(0)
        h = torch.randn(4, 5, device=device).to(dtype)
        w0 = torch.randn(5, 3, device=device).to(dtype)
        weights = torch.arange(3.0, device=device, dtype=dtype)

        def grad(fn, ctx=None):
            w = w0.clone().requires_grad_(True)
            if ctx is not None:
                with ctx():
                    probs = fn(h, w)
                    (probs * weights).sum().backward()
            else:
                probs = fn(h, w)
                (probs * weights).sum().backward()
            return w.grad

        def original(h, w):
            logits = h @ w
            logits -= logits.amax(dim=1, keepdim=True)
            return logits.exp() / logits.exp().sum(dim=1, keepdim=True)

        def patched(h, w):
            logits = h @ w
            logits = logits - logits.amax(dim=1, keepdim=True)
            return logits.exp() / logits.exp().sum(dim=1, keepdim=True)

        g_ref = grad(original, torch.autograd.graph.allow_mutation_on_saved_tensors)
        g_new = grad(patched)
        g_soft = grad(lambda h, w: torch.softmax(h @ w, dim=1))
        out[str(dtype).replace("torch.", "")] = {
            "allow_mutation_vs_patched": float((g_ref - g_new).abs().max()),
            "allow_mutation_vs_softmax": float((g_ref - g_soft).abs().max()),
            "patched_vs_softmax": float((g_new - g_soft).abs().max()),
            "max_abs_grad": float(g_soft.abs().max()),
        }
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", type=Path, required=True)
    ns = ap.parse_args()
    devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    res = {"torch": torch.__version__}
    for d in devices:
        res[d] = {"dropout": dropout_masks(d), "fixtures": fixtures(d), "amax_fixture_33": amax_fixture(d)}
    ns.output.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
    for d in devices:
        print(f"== {d}")
        for k, v in res[d]["dropout"].items():
            print(f"  dropout {k}: same mask inplace/out-of-place: {v['same_mask']}; kept {v['kept_fraction']}; "
                  f"aten inplace {v['aten_inplace']} / out-of-place {v['aten_out_of_place']}")
        for k, v in res[d]["fixtures"].items():
            print(f"  fixture {k}: {json.dumps(v)}")
        print(f"  fixture 33 stable_softmax grads: {json.dumps(res[d]['amax_fixture_33'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
