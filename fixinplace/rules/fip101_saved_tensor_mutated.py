"""FIP101 saved-tensor-mutated: an in-place write to a tensor that an earlier op saved for backward."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import SaveInvalidated
from fixinplace.diagnostics import Severity
from fixinplace.facts import GradMode, WriteFacts, WriteForm
from fixinplace.rules.base import Finding, Repairs, Rule
from fixinplace.rules.wording import backward_at, inplace_module, save_text, saved_here, saved_remedy, shares


@dataclass(frozen=True)
class SavedTensorMutated(Rule):
    event = SaveInvalidated
    needs_backward = True

    def claims(self, event: SaveInvalidated) -> bool:
        return not event.write.silent and event.site.form != WriteForm.OPTIMIZER

    def finding(self, event: SaveInvalidated) -> Finding:
        write, save, site = event.write, event.save, event.site
        saved, written = save.group.label, write.label
        via = shares(written, saved, silent=False)
        what = save_text(save, event.certain)
        backward = backward_at(event.backward_label, event.backward_line)
        severity = Severity.ERROR if event.certain else Severity.WARNING
        related = saved_here(save)
        if site.form == WriteForm.LIBRARY:
            why = dict(site.setting.extra).get("library", "")
            message = (f"`{site.text}` writes `{written}` in place{via} ({why}): {what}; the backward of {backward} "
                       f"then fails (\"modified by an inplace operation\")")
            return Finding(severity, message, related)
        ctor = site.setting.module_ctor
        condition = site.setting.module_condition
        when = f"; it writes only when its {condition}, not known here, is not 0" if condition else ""
        by = f" by `{site.op}` ({inplace_module(site.setting)}{when})" if ctor else ""
        if write.group.origin == "param" and site.setting.grad_mode == GradMode.OFF:
            # A parameter updated by hand under no_grad (SAM's perturbation, a manual SGD step): it must stay a
            # write in place, so the remedy is the order, as for an optimizer's step.
            remedy = "This updates the parameter: run that backward before the update, or recompute the loss after it"
        else:
            remedy = saved_remedy(save, written)
        message = (f"in-place write to `{written}`{via}{by}: {what}; writing it in place makes the backward of "
                   f"{backward} fail (\"modified by an inplace operation\"). {remedy}")
        return Finding(severity, message, related, subject=written)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.saved(facts) + repairs.recompute_forward(facts)


RULE = SavedTensorMutated(
    code="FIP101",
    name="saved-tensor-mutated",
    severity=Severity.ERROR,
    found_in=(
        "`CallHandler.backward` (calls/ops.py): a save in the backward's graph whose group was written after "
        "it, on a compatible branch path; the write is neither silent nor an optimizer step"
    ),
    severity_when=(
        "`error` when the save and the write are certain (the tensor is known to be a tensor, the op saves it "
        "for these inputs, grad mode is on); `warning` otherwise"
    ),
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
        "import torch\n"
        "import torch.nn.functional as F\n"
        "from torch import nn\n"
        "drop = nn.Dropout(0.5)\n"
        "for m in [drop]:  # a model's modules, turned in place after they are built\n"
        "    if isinstance(m, nn.Dropout):\n"
        "        m.inplace = True\n"
        "x = torch.randn(4, requires_grad=True)\n"
        "y = drop(F.relu(x))  # expect: FIP101\n"
        "y.sum().backward()\n",
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
        "from torch.distributions import Normal\n"
        "mean = torch.randn(3, requires_grad=True)\n"
        "normal = Normal(mean, torch.ones(3))\n"
        "action = normal.rsample()\n"
        "log_prob = normal.log_prob(action)  # a new tensor, not the distribution's\n"
        "log_prob -= 1.0\n"
        "log_prob.sum().backward()\n",
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
