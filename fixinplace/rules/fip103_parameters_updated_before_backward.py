"""FIP103 parameters-updated-before-backward: an optimizer step between a forward and the backward that needs
the weights it updates."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import SaveInvalidated
from fixinplace.diagnostics import Severity
from fixinplace.facts import WriteFacts, WriteForm
from fixinplace.rules.base import Finding, Repairs, Rule
from fixinplace.rules.wording import backward_at, save_text, saved_here


@dataclass(frozen=True)
class ParametersUpdatedBeforeBackward(Rule):
    event = SaveInvalidated
    needs_backward = True

    def claims(self, event: SaveInvalidated) -> bool:
        return not event.write.silent and event.site.form == WriteForm.OPTIMIZER

    def finding(self, event: SaveInvalidated) -> Finding:
        save = event.save
        message = (
            f"`{event.site.text}` updates {event.write.label} in place; {save_text(save, event.certain)}, and the "
            f"backward of {backward_at(event.backward_label, event.backward_line)} runs after the update, so it "
            f"fails (\"modified by an inplace operation\"). Step after that backward, or recompute the loss after "
            f"the step"
        )
        related = saved_here(save)
        return Finding(Severity.ERROR if event.certain else Severity.WARNING, message, related)

    def candidates(self, facts: WriteFacts, repairs: Repairs) -> list:
        return repairs.move_after_backward(facts) + repairs.recompute_forward(facts) + repairs.detach_carried(facts)


RULE = ParametersUpdatedBeforeBackward(
    code="FIP103",
    name="parameters-updated-before-backward",
    severity=Severity.ERROR,
    found_in=(
        "`CallHandler.optimizer_step` records the step as writes on the parameters; `backward` finds the save "
        "it breaks"
    ),
    severity_when=(
        "as FIP101"
    ),
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
        "import torch\n"
        "from torch import nn\n"
        "D = nn.Linear(4, 1)\n"
        "G = nn.Linear(2, 4)\n"
        "opt_d = torch.optim.SGD(D.parameters(), lr=0.1)\n"
        "with torch.autocast(\"cpu\", dtype=torch.bfloat16):  # Linear keeps bfloat16 copies of its weights\n"
        "    fake = G(torch.randn(8, 2))\n"
        "    loss_d = D(fake.detach()).mean()\n"
        "    loss_g = -D(fake).mean()\n"
        "loss_d.backward()\n"
        "opt_d.step()  # rewrites the float32 weights, which nothing saved\n"
        "loss_g.backward()\n",
    ),
)
