"""The rules: stable codes, names, default severities, docs and examples.

This module is the one source of truth for the rule pages of the docs (`docs/rules.md`, `docs/rules/`, rendered
by `python -m fixinplace.docs`) and for the rule-example tests: every `flagged` example must produce a diagnostic
with the rule's code on each line marked `# expect: CODE`, and every `clean` example must produce no error or
warning at all.
"""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.diagnostics import Severity


@dataclass(frozen=True)
class Rule:
    """One hazard kind the analysis reports."""

    code: str
    name: str
    severity: Severity  # the severity when the analysis is sure; uncertain cases are reported as warnings
    summary: str
    explanation: str
    flagged: tuple[str, ...]  # programs with `# expect: CODE` on each line that must be reported
    clean: tuple[str, ...]  # programs that must get no error or warning
    # Which family of rewrites the fix stage plans for it (`fixinplace.fix.candidates.PLANNERS`): "saved" (out of
    # place, or a clone where the op saves), "leaf" (no_grad, or a new tensor), "optimizer" (the step after the
    # backward), "data" (the `.data` write made differentiable, all unsafe), "array" (a copy where the tensor is
    # made, or the write out of place, all unsafe), "reused" (the call without `inplace=True`, unsafe); "" for none.
    repair: str = ""


SAVED_TENSOR_MUTATED = Rule(
    code="FIP101",
    repair="saved",
    name="saved-tensor-mutated",
    severity=Severity.ERROR,
    summary="In-place write to a tensor that an earlier op saved for backward",
    explanation=(
        "Autograd saves some inputs or outputs of an op to compute its gradient (`exp`, `sigmoid`, `tanh`, "
        "`relu`, `softmax` save their output; `pow`, `log`, `sin`, `mul` by a tensor save their inputs; `add`, "
        "`sub`, `mul` by a Python number save nothing). Writing such a tensor in place, or any view or alias of "
        "it (`x[0]`, `x.view(...)`, `x.t()`, `x.detach()` share its version counter), bumps its version, and the "
        "backward that needs it raises \"one of the variables needed for gradient computation has been modified "
        "by an inplace operation\". Which op saves what is generated from the installed PyTorch "
        "(`python -m fixinplace.tables`), per combination of inputs that require grad. The diagnostic is reported "
        "at the write only when a backward (explicit, or the caller's, for a value the function returns) needs "
        "the saved tensor. Indexing with tensors (`w[idx]`, `w[mask]`) saves the index tensors. Library calls that "
        "write an argument, a parameter or a buffer in place are writes too, as the table measured them (version "
        "bumps): `F.embedding(ids, w, max_norm=1.0)` and `nn.Embedding(..., max_norm=1.0)` renormalise the weight "
        "on every lookup, even under `torch.no_grad()`."
    ),
    flagged=(
        "import torch\n"
        "u = torch.ones(3, requires_grad=True)\n"
        "uexp = u.exp()\n"
        "loss = uexp.sum()\n"
        "uexp[0] = 666  # expect: FIP101\n"
        "loss.backward()\n",
        "import torch\n"
        "u = torch.ones(3, requires_grad=True)\n"
        "v = u * 1\n"
        "usq = v ** 2\n"
        "v.add_(1)  # expect: FIP101\n"
        "usq.sum().backward()\n",
        "import torch\n"
        "import torch.nn.functional as F\n"
        "x = torch.randn(4, requires_grad=True)\n"
        "h = torch.sigmoid(x * 3)\n"
        "h = F.relu(h, inplace=True)  # expect: FIP101\n"
        "h.sum().backward()\n",
        "import torch\n"
        "w = torch.randn(30, 6, requires_grad=True)\n"
        "ids = torch.randint(0, 30, (8,))\n"
        "loss = (w[ids] * 2.0).sum()\n"
        "ids.add_(1)  # expect: FIP101\n"
        "loss.backward()\n",
        "import torch\n"
        "from torch import nn\n"
        "emb = nn.Embedding(12, 4, max_norm=1.0)\n"
        "ids = torch.randint(0, 12, (3,))\n"
        "loss = (emb(ids) @ emb.weight.t()).sum()\n"
        "emb(ids + 1)  # expect: FIP101\n"
        "loss.backward()\n",
        "import torch\n"
        "x = torch.randn(3, requires_grad=True)\n"
        "outputs = {\"a\": x.exp()}  # a container holds the saved tensor\n"
        "outputs[\"a\"].add_(1)  # expect: FIP101\n"
        "outputs[\"a\"].sum().backward()\n",
    ),
    clean=(
        "import torch\n"
        "u = torch.ones(3, requires_grad=True)\n"
        "uexp = u.exp()\n"
        "loss = uexp.sum()\n"
        "v = u * 1\n"
        "v[0] = 666  # exp saved its output, not its input\n"
        "loss.backward()\n",
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x * 2\n"
        "y[0] = 10  # multiplying by a Python number saves nothing\n"
        "(y + 1).sum().backward()\n",
        "import torch\n"
        "from torch import nn\n"
        "import lightning as L\n"
        "\n"
        "\n"
        "class Net(L.LightningModule):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.body = nn.Linear(4, 4)\n"
        "\n"
        "    def validation_step(self, batch, batch_idx):\n"
        "        h = torch.sigmoid(self.body(batch))\n"
        "        h.mul_(2)  # Lightning runs validation without grad: sigmoid saved nothing\n"
        "        return h\n",
    ),
)

LEAF_MUTATED = Rule(
    code="FIP102",
    repair="leaf",
    name="leaf-mutated",
    severity=Severity.ERROR,
    summary="In-place write to a leaf tensor that requires grad, in grad mode",
    explanation=(
        "A leaf tensor that requires grad (`torch.ones(3, requires_grad=True)`, an `nn.Parameter`, a module's "
        "`self.weight`) or a view of one cannot be written in place while grad mode is on: PyTorch raises \"a "
        "leaf Variable that requires grad is being used in an in-place operation\" at the write. Parameter updates "
        "belong under `torch.no_grad()`. A write to a function's argument is reported where a call passes a leaf "
        "(at the call, when the function is in another file); with no caller seen, it is not reported: a function "
        "that writes its argument does what its callers ask."
    ),
    flagged=(
        "import torch\n"
        "w = torch.zeros(3, requires_grad=True)\n"
        "w.add_(1)  # expect: FIP102\n",
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "w -= 0.1 * w.grad  # expect: FIP102\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "with torch.no_grad():\n"
        "    w -= 0.1 * w.grad\n",
    ),
)

PARAMETERS_UPDATED_BEFORE_BACKWARD = Rule(
    code="FIP103",
    repair="optimizer",
    name="parameters-updated-before-backward",
    severity=Severity.ERROR,
    summary="Optimizer step (in-place parameter update) between a forward and the backward that needs the weights",
    explanation=(
        "`optimizer.step()` updates the parameters in place. When a loss was computed from those parameters "
        "before the step (and its op saved them, as `linear` saves its weight when its input requires grad) and "
        "its backward runs after the step, the backward raises (SGD, Adam, foreach). This is the GAN pattern: "
        "compute the discriminator's loss and the generator's loss, step the discriminator, then backward the "
        "generator's loss. Reorder the steps or recompute the loss after the step."
    ),
    flagged=(
        "import torch\n"
        "from torch import nn\n"
        "D = nn.Linear(4, 1)\n"
        "G = nn.Linear(2, 4)\n"
        "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)\n"
        "fake = G(torch.randn(8, 2))\n"
        "loss_d = D(fake.detach()).mean()\n"
        "loss_g = -D(fake).mean()\n"
        "loss_d.backward()\n"
        "opt_d.step()  # expect: FIP103\n"
        "loss_g.backward()\n",
        "import torch\n"
        "from torch import nn\n"
        "D = nn.Linear(4, 1)\n"
        "G = nn.Linear(2, 4)\n"
        "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)\n"
        "scaler = torch.amp.GradScaler(\"cpu\")  # mixed precision: the same order matters\n"
        "fake = G(torch.randn(8, 2))\n"
        "loss_d = D(fake.detach()).mean()\n"
        "loss_g = -D(fake).mean()\n"
        "scaler.scale(loss_d).backward()\n"
        "scaler.step(opt_d)  # expect: FIP103\n"
        "scaler.scale(loss_g).backward()\n",
        "import torch\n"
        "from torch import nn\n"
        "import lightning as L\n"
        "\n"
        "\n"
        "class GAN(L.LightningModule):  # manual optimization\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.G, self.D = nn.Linear(2, 4), nn.Linear(4, 1)\n"
        "\n"
        "    def training_step(self, z, batch_idx):\n"
        "        opt_g, opt_d = self.optimizers()\n"
        "        fake = self.G(z)\n"
        "        loss_d = self.D(fake.detach()).mean()\n"
        "        loss_g = -self.D(fake).mean()\n"
        "        self.manual_backward(loss_d)\n"
        "        opt_d.step()  # expect: FIP103\n"
        "        self.manual_backward(loss_g)\n"
        "        opt_g.step()\n"
        "\n"
        "    def configure_optimizers(self):\n"
        "        return torch.optim.SGD(self.G.parameters()), torch.optim.SGD(self.D.parameters())\n",
    ),
    clean=(
        "import torch\n"
        "from torch import nn\n"
        "model = nn.Linear(4, 1)\n"
        "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "for _ in range(3):\n"
        "    opt.zero_grad()\n"
        "    loss = model(torch.randn(8, 4)).pow(2).mean()\n"
        "    loss.backward()\n"
        "    opt.step()\n",
    ),
)

SILENT_SAVED_TENSOR_MUTATION = Rule(
    code="FIP104",
    repair="data",
    name="silent-saved-tensor-mutation",
    severity=Severity.ERROR,
    summary="Write through `.data`, a NumPy alias or a fused optimizer to a saved tensor: no error, a wrong gradient",
    explanation=(
        "`x.data` and the NumPy array of `x.numpy()` share storage with `x` but not its version counter, and fused "
        "optimizers (`fused=True`, measured on CPU) do not bump versions. A write through them to a tensor that a "
        "pending backward saved raises nothing: the backward silently uses the new values and the gradient is "
        "wrong. A silently wrong gradient is worse than an exception."
    ),
    flagged=(
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "y.data.mul_(2)  # expect: FIP104\n"
        "y.sum().backward()\n",
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "a = y.detach().numpy()\n"
        "a *= 2  # expect: FIP104\n"
        "y.sum().backward()\n",
    ),
    clean=(
        "import torch\n"
        "w = torch.ones(3, requires_grad=True)\n"
        "loss = (w * 3).sum()\n"
        "loss.backward()\n"
        "w.data.add_(-0.1 * w.grad)  # nothing pending needs w\n",
        "import torch\n"
        "x = torch.ones(3, requires_grad=True)\n"
        "y = x.exp()\n"
        "a = y.detach().numpy().copy()  # a copy: writing it leaves y alone\n"
        "a *= 2\n"
        "y.sum().backward()\n",
    ),
)

SHARED_ARRAY_MUTATED = Rule(
    code="FIP105",
    repair="array",
    name="shared-array-mutated",
    severity=Severity.ERROR,
    summary="In-place write to a tensor that shares a NumPy array's memory, and the array is read again",
    explanation=(
        "`torch.from_numpy(a)` (and `torch.as_tensor(a)` / `torch.asarray(a)` of an array, with no other dtype or "
        "device asked for) makes a tensor that shares `a`'s memory. Writing that tensor in place writes `a`: "
        "autograd does not see it and nothing raises, but every later reader of `a` gets the written values (a "
        "dataset normalised again on each epoch, a replay buffer divided by 255 twice). An error when the array's "
        "variable is read again after the write in the function that made the tensor; a warning when the array "
        "outlives the function (an attribute, a global, the caller's argument), when the argument may be a list "
        "(`as_tensor` copies one), or when an index may have copied it (`a[idx]` with an index array). "
        "`torch.tensor(a)`, `torch.from_numpy(a.copy())` and out-of-place writes leave `a` alone."
    ),
    flagged=(
        "import numpy as np\n"
        "import torch\n"
        "frames = np.full((2, 3), 255.0, dtype=np.float32)\n"
        "for epoch in range(2):\n"
        "    x = torch.from_numpy(frames)\n"
        "    x /= 255.0  # expect: FIP105\n",
        "import numpy as np\n"
        "import torch\n"
        "a = np.zeros(3)\n"
        "t = torch.as_tensor(a)\n"
        "t.add_(1)  # expect: FIP105\n"
        "print(a.sum())\n",
    ),
    clean=(
        "import numpy as np\n"
        "import torch\n"
        "frames = np.full((2, 3), 255.0, dtype=np.float32)\n"
        "for epoch in range(2):\n"
        "    x = torch.from_numpy(frames.copy())  # a copy: writing it leaves frames alone\n"
        "    x /= 255.0\n",
        "import numpy as np\n"
        "import torch\n"
        "a = np.zeros(3)\n"
        "t = torch.from_numpy(a)\n"
        "t.add_(1)  # nothing reads `a` again\n"
        "print(t.sum())\n",
    ),
)

DATA_WRITE_IN_FORWARD = Rule(
    code="FIP106",
    name="data-write-in-forward",
    severity=Severity.WARNING,
    summary="A parameter written through `.data` inside `forward`, which then uses it: an op autograd never sees",
    explanation=(
        "`self.weight.data = self.weight.data / norm` (or `self.weight.data.div_(norm)`) in `forward`, followed by "
        "an op on `self.weight`, computes the forward with the written values, but autograd does not see the op "
        "that made them: the gradient treats the new values as the parameter's own (the renormalisation, clamp or "
        "projection is not differentiated) and the optimizer, with its state, steps from them. Nothing raises. A "
        "warning, because a constraint applied on purpose between steps looks the same: when the op belongs to the "
        "model, compute it out of place (`w = self.weight / self.weight.norm(dim=1, keepdim=True)`) and use `w`; "
        "when it is a constraint, apply it after `optimizer.step()` under `torch.no_grad()`. A write to a buffer, "
        "a write under `torch.no_grad()`, and a write after the parameter's last use in `forward` are not reported."
    ),
    flagged=(
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "class NormLinear(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4, 4))\n"
        "\n"
        "    def forward(self, x):\n"
        "        self.weight.data = self.weight.data / self.weight.data.norm(dim=1, keepdim=True)  # expect: FIP106\n"
        "        return F.linear(x, self.weight)\n",
    ),
    clean=(
        "import torch\n"
        "import torch.nn as nn\n"
        "import torch.nn.functional as F\n"
        "\n"
        "\n"
        "class NormLinear(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.weight = nn.Parameter(torch.randn(4, 4))\n"
        "\n"
        "    def forward(self, x):\n"
        "        w = self.weight / self.weight.norm(dim=1, keepdim=True)  # differentiated\n"
        "        return F.linear(x, w)\n",
    ),
)

INPLACE_INPUT_REUSED = Rule(
    code="FIP107",
    repair="reused",
    name="inplace-input-reused",
    severity=Severity.WARNING,
    summary="An in-place activation's input is read again after the call, under its old name",
    explanation=(
        "`out = self.block(x)` where the block's first layer is `nn.ReLU(inplace=True)` (or `out = F.relu(x, "
        "inplace=True)`) writes `x` itself: a later `out += x` (a residual connection) adds the activated values, "
        "not the input. Nothing raises when no op saved `x`, and the outputs and gradients silently differ from "
        "what the code reads as. Reported when the call's result is bound to another name and `x` is read again "
        "afterwards; a warning, because code may mean the activated values. The fix builds the module (or calls "
        "the function) without `inplace=True` (unsafe: the values the later read sees change, which is the point)."
    ),
    flagged=(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class ResBlock(nn.Module):\n"
        "    def __init__(self, channel):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(channel, channel, 3, padding=1))\n"
        "\n"
        "    def forward(self, input):\n"
        "        out = self.conv(input)  # expect: FIP107\n"
        "        out += input\n"
        "        return out\n",
    ),
    clean=(
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "\n"
        "class ResBlock(nn.Module):\n"
        "    def __init__(self, channel):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Sequential(nn.ReLU(), nn.Conv2d(channel, channel, 3, padding=1))\n"
        "\n"
        "    def forward(self, input):\n"
        "        out = self.conv(input)\n"
        "        out += input\n"
        "        return out\n",
    ),
)

INPLACE_WRITE = Rule(
    code="FIP900",
    name="inplace-write",
    severity=Severity.INFO,
    summary="A safe in-place write (informational, off by default)",
    explanation=(
        "Reported with `--severity info`: an in-place tensor write the analysis found safe (nothing pending "
        "saved the tensor and it is not a leaf that requires grad in grad mode). Useful when auditing code."
    ),
    flagged=(
        "import torch\n"
        "buf = torch.zeros(3)\n"
        "buf.add_(1)  # expect: FIP900\n",
    ),
    clean=(),
)

RULES: tuple[Rule, ...] = (
    SAVED_TENSOR_MUTATED,
    LEAF_MUTATED,
    PARAMETERS_UPDATED_BEFORE_BACKWARD,
    SILENT_SAVED_TENSOR_MUTATION,
    SHARED_ARRAY_MUTATED,
    DATA_WRITE_IN_FORWARD,
    INPLACE_INPUT_REUSED,
    INPLACE_WRITE,
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
