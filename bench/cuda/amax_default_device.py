"""Fixture fix/33 on CUDA: is verify's reference (the original under allow_mutation_on_saved_tensors) wrong only
when CUDA is the *default device*? (GPU run 3 found w.grad differing by 0.92 through main() with
set_default_device("cuda").) Answer (GPU run 4): no, it is as wrong with explicit device= arguments; see
allow_mutation_repeat.py for what it does depend on.

    python bench/cuda/amax_default_device.py
"""

import importlib.util
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[2]
F33 = ROOT / "fixtures/fix/33_augassign_out_of_place_self_referential_amax"


def load(p, name):
    spec = importlib.util.spec_from_file_location(name, p)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def original(h, w):
    logits = h @ w
    logits -= logits.amax(dim=1, keepdim=True)
    return logits.exp() / logits.exp().sum(dim=1, keepdim=True)


def run(device, default_device, allow):
    prev = torch.get_default_device()
    if default_device:
        torch.set_default_device(device)
    try:
        torch.manual_seed(0)
        kw = {} if default_device else {"device": device}
        h = torch.randn(4, 5, **kw)
        w = torch.randn(5, 3, **kw).requires_grad_(True)
        ctx = torch.autograd.graph.allow_mutation_on_saved_tensors() if allow else None
        if ctx:
            with ctx:
                probs = original(h, w)
                (probs * torch.arange(3.0, **kw)).sum().backward()
        else:
            probs = torch.softmax(h @ w, dim=1)
            (probs * torch.arange(3.0, **kw)).sum().backward()
        return w.grad.detach().cpu().double()
    finally:
        torch.set_default_device(prev)


devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
for d in devices:
    truth = run(d, False, False)
    for dd in (False, True):
        g = run(d, dd, True)
        print(f"{d}: default_device={dd}: |allow_mutation(original) - softmax| max = {float((g - truth).abs().max()):.3g}")
    prev = torch.get_default_device()
    torch.set_default_device(d)
    try:
        b, a = load(F33 / "before.py", "b33"), load(F33 / "after.py", "a33")
        torch.manual_seed(0)
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            ref = b.main()
        torch.manual_seed(0)
        new = a.main()
    finally:
        torch.set_default_device(prev)
    print(f"{d}: fixture main() under set_default_device: |ref w.grad - patched w.grad| max = "
          f"{float((ref['w.grad'] - new['w.grad']).abs().max()):.3g}")
    # a simpler saved-output hazard under the default device
    for dd in (False, True):
        prev = torch.get_default_device()
        if dd:
            torch.set_default_device(d)
        try:
            x = torch.randn(3, device=None if dd else d, requires_grad=True)
            with torch.autograd.graph.allow_mutation_on_saved_tensors():
                y = x.exp()
                y.add_(1)
                y.sum().backward()
            print(f"{d}: exp then add_ under allow_mutation, default_device={dd}: |grad - exp(x)| max = "
                  f"{float((x.grad - x.detach().exp()).abs().max()):.3g}")
        finally:
            torch.set_default_device(prev)
