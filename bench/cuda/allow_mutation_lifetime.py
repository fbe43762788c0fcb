"""Is allow_mutation_on_saved_tensors() wrong on CUDA when the mutated tensor is freed before backward?
Fixture fix/33's computation (`logits -= logits.amax(...)` then softmax), gradient of w compared with
torch.softmax's, with `logits` kept alive until backward or freed (a function's local, or `del`) before it.
Also a second hazard shape (exp output written in place by a helper) for generality.

    python bench/cuda/allow_mutation_lifetime.py
"""

import gc

import torch

KEEP = []


def original(h, w, keep):
    logits = h @ w
    logits -= logits.amax(dim=1, keepdim=True)
    if keep:
        KEEP.append(logits)
    return logits.exp() / logits.exp().sum(dim=1, keepdim=True)


def helper(x, keep):
    y = x.exp()
    z = y * 2          # mul saves y? no: saves the scalar; exp saves its output y
    y.add_(1)          # writes exp's saved output
    if keep:
        KEEP.append(y)
    return z + y


devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
for d in devices:
    torch.manual_seed(0)
    h = torch.randn(4, 5, device=d)
    w0 = torch.randn(5, 3, device=d)
    weights = torch.arange(3.0, device=d)
    w2 = w0.clone().requires_grad_(True)
    (torch.softmax(h @ w2, dim=1) * weights).sum().backward()
    for mode in ("kept alive", "function local, freed", "inline, del before backward",
                 "function local, freed, empty_cache"):
        KEEP.clear()
        w = w0.clone().requires_grad_(True)
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            if mode == "inline, del before backward":
                logits = h @ w
                logits -= logits.amax(dim=1, keepdim=True)
                probs = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
                del logits
                gc.collect()
            else:
                probs = original(h, w, keep=(mode == "kept alive"))
                if "empty_cache" in mode and d == "cuda":
                    torch.cuda.empty_cache()
            junk = [torch.randn(4, 3, device=d) for _ in range(8)]  # reuse freed blocks, as later code would
            (probs * weights).sum().backward()
        print(f"{d}: amax fixture, logits {mode}: |w.grad - softmax grad| max = {float((w.grad - w2.grad).abs().max()):.3g}")
    for keep in (True, False):
        KEEP.clear()
        torch.manual_seed(1)
        x = torch.randn(6, device=d, requires_grad=True)
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            out = helper(x, keep)
            junk = [torch.randn(6, device=d) for _ in range(8)]
            out.sum().backward()
        # intended: d/dx (2 e^x + e^x + 1) = 3 e^x
        print(f"{d}: exp helper, y {'kept alive' if keep else 'freed'}: |x.grad - 3 exp(x)| max = "
              f"{float((x.grad - 3 * x.detach().exp()).abs().max()):.3g}")
