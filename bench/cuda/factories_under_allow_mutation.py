"""Do tensor factories give the right values inside torch.autograd.graph.allow_mutation_on_saved_tensors() on CUDA?
(Fixture fix/33's reference gradient is wrong on CUDA only; its main() makes `torch.arange(3.0)` inside the
reference run.)  python bench/cuda/factories_under_allow_mutation.py
"""

import torch

devices = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
makers = {
    "arange(3.0)": lambda d: torch.arange(3.0, device=d),
    "arange(5)": lambda d: torch.arange(5, device=d),
    "arange(0,1,0.25)": lambda d: torch.arange(0, 1, 0.25, device=d),
    "linspace(0,1,4)": lambda d: torch.linspace(0, 1, 4, device=d),
    "ones(3)": lambda d: torch.ones(3, device=d),
    "zeros(3)": lambda d: torch.zeros(3, device=d),
    "full((3,),2.0)": lambda d: torch.full((3,), 2.0, device=d),
    "eye(2)": lambda d: torch.eye(2, device=d),
    "tensor([1.,2.])": lambda d: torch.tensor([1.0, 2.0], device=d),
}
for d in devices:
    for name, make in makers.items():
        plain = make(d).cpu()
        for _ in range(3):
            with torch.autograd.graph.allow_mutation_on_saved_tensors():
                inside = make(d)
                inside_cpu = inside.cpu()
            same = torch.equal(plain, inside_cpu)
            if not same:
                break
        print(f"{d}: {name}: same inside allow_mutation_on_saved_tensors: {same}"
              + ("" if same else f"  plain {plain.tolist()} inside {inside_cpu.tolist()}"))
    # the fixture-33 computation with the weights made outside / inside the context
    for inside_weights in (False, True):
        torch.manual_seed(0)
        h = torch.randn(4, 5, device=d)
        w = torch.randn(5, 3, device=d).requires_grad_(True)
        weights = torch.arange(3.0, device=d)
        with torch.autograd.graph.allow_mutation_on_saved_tensors():
            logits = h @ w
            logits -= logits.amax(dim=1, keepdim=True)
            probs = logits.exp() / logits.exp().sum(dim=1, keepdim=True)
            wts = torch.arange(3.0, device=d) if inside_weights else weights
            (probs * wts).sum().backward()
        w2 = w.detach().clone().requires_grad_(True)
        (torch.softmax(h @ w2, dim=1) * weights).sum().backward()
        print(f"{d}: fixture 33 under allow_mutation, arange made {'inside' if inside_weights else 'outside'}: "
              f"|w.grad - softmax grad| max = {float((w.grad - w2.grad).abs().max()):.3g}")
