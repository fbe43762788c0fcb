"""Strategy `recompute_forward`: a forward whose saves an update breaks runs again where the later backward can use
it. A forward computed once before a loop whose every iteration runs a backward through it and then updates what
it saved (an optimizer step on the generator of a sample reused across several generator steps) moves to the
start of the loop body; a forward whose graph is used again after an optimizer step (a second loss on the same
output) runs again right after the step, or moves there, with the statements that read what it binds, when
nothing before the step needs them (the reorder a maintainer makes: step the critic, then build the actor's loss
through it).

Always unsafe: the forward runs again with the updated weights, which is what the later backwards need but changes
what the code computes. In a loop, offered only when the names the forward binds are read nowhere but in the loop
and nothing in the loop rebinds what it reads; after a step, only when nothing from the forward to the backward
rebinds what it reads or binds.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from codemods._base import BlockRewrite
from fixinplace.facts import Span

NAME = "recompute_forward"


class RecomputeForward(BlockRewrite):
    """The statement starting at `recompute` put first in the body of the loop starting at `loop`, or copied right
    after the statement starting at `recompute_after` (same block)."""

    NAME = NAME
    DESCRIPTION = "Run a forward again where a later backward needs it with the updated weights."

    def rewrite_block(self, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode]) -> Optional[list]:
        recompute: Span = self.anchor["recompute"]  # type: ignore[assignment]
        after: Optional[Span] = self.anchor.get("recompute_after")  # type: ignore[assignment]
        moved: tuple = self.anchor.get("moved", ())  # type: ignore[assignment]
        if after is not None and moved:
            return self._moved_after(original, updated, moved, after)
        if after is not None:
            return self._again_after(original, updated, recompute, after)
        loop: Span = self.anchor["loop"]  # type: ignore[assignment]
        i = self.index_starting(original, recompute.line)
        j = self.index_starting(original, loop.line)
        if i is None or j is None or not i < j or not isinstance(updated[j], (cst.For, cst.While)):
            return None
        body = list(updated)
        moved = body[i].with_changes(leading_lines=())
        target = body[j]
        if not isinstance(target.body, cst.IndentedBlock):
            return None
        body[j] = target.with_changes(body=target.body.with_changes(body=[moved, *target.body.body]))
        del body[i]
        self.applies()
        return body

    def _again_after(self, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode], recompute: Span,
                     after: Span) -> Optional[list]:
        """The statement at `recompute` copied right after the statement at `after` (same block)."""
        i = self.index_starting(original, recompute.line)
        j = self.index_starting(original, after.line)
        if i is None or j is None or not i < j:
            return None
        again = updated[i].with_changes(leading_lines=())
        if isinstance(again, cst.SimpleStatementLine):  # the copy without the original's trailing comment
            again = again.with_changes(trailing_whitespace=cst.TrailingWhitespace())
        body = list(updated)
        body.insert(j + 1, again)
        self.applies()
        return body

    def _moved_after(self, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode], moved: tuple,
                     after: Span) -> Optional[list]:
        """The statements starting at the lines of `moved` taken out and put, in their order, right after the
        statement at `after` (same block)."""
        picked = [self.index_starting(original, span.line) for span in moved]
        j = self.index_starting(original, after.line)
        if j is None or any(i is None or not i < j for i in picked):
            return None
        body = list(updated)
        # A moved statement keeps the comments above it, not the blank lines that set it apart where it was.
        carried = [body[i].with_changes(leading_lines=[line for line in body[i].leading_lines if line.comment])
                   for i in picked]
        kept = [s for k, s in enumerate(body[:j + 1]) if k not in picked]
        self.applies()
        return [*kept, *carried, *body[j + 1:]]

    EXAMPLES = (
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))\n"
            "D = nn.Linear(4, 1)\n"
            "opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
            "z = torch.randn(5, 2)\n"
            "fake = G(z)\n"
            "for _ in range(3):\n"
            "    g_loss = -D(fake).mean()\n"
            "    opt_g.zero_grad()\n"
            "    g_loss.backward(retain_graph=True)\n"
            "    opt_g.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))\n"
            "D = nn.Linear(4, 1)\n"
            "opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
            "z = torch.randn(5, 2)\n"
            "for _ in range(3):\n"
            "    fake = G(z)\n"
            "    g_loss = -D(fake).mean()\n"
            "    opt_g.zero_grad()\n"
            "    g_loss.backward(retain_graph=True)\n"
            "    opt_g.step()\n",
        ),
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))\n"
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "x = torch.randn(5, 4)\n"
            "out = model(x)\n"
            "opt.zero_grad()\n"
            "out.pow(2).mean().backward(retain_graph=True)\n"
            "opt.step()\n"
            "opt.zero_grad()\n"
            "out.abs().mean().backward()\n"
            "opt.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 4))\n"
            "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
            "x = torch.randn(5, 4)\n"
            "out = model(x)\n"
            "opt.zero_grad()\n"
            "out.pow(2).mean().backward(retain_graph=True)\n"
            "opt.step()\n"
            "out = model(x)\n"
            "opt.zero_grad()\n"
            "out.abs().mean().backward()\n"
            "opt.step()\n",
        ),
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "critic = nn.Linear(4, 1)\n"
            "actor = nn.Linear(3, 4)\n"
            "opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)\n"
            "opt_a = torch.optim.SGD(actor.parameters(), lr=0.1)\n"
            "s, a = torch.randn(5, 3), torch.randn(5, 4)\n"
            "q_loss = critic(a).pow(2).mean()\n"
            "actor_loss = -critic(actor(s)).mean()\n"
            "# what the log shows\n"
            "record = actor_loss.detach()\n"
            "\n"
            "opt_c.zero_grad()\n"
            "q_loss.backward()\n"
            "opt_c.step()\n"
            "opt_a.zero_grad()\n"
            "actor_loss.backward()\n"
            "opt_a.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "critic = nn.Linear(4, 1)\n"
            "actor = nn.Linear(3, 4)\n"
            "opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)\n"
            "opt_a = torch.optim.SGD(actor.parameters(), lr=0.1)\n"
            "s, a = torch.randn(5, 3), torch.randn(5, 4)\n"
            "q_loss = critic(a).pow(2).mean()\n"
            "\n"
            "opt_c.zero_grad()\n"
            "q_loss.backward()\n"
            "opt_c.step()\n"
            "actor_loss = -critic(actor(s)).mean()\n"
            "# what the log shows\n"
            "record = actor_loss.detach()\n"
            "opt_a.zero_grad()\n"
            "actor_loss.backward()\n"
            "opt_a.step()\n",
        ),
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "enc = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))\n"
            "dec = nn.Linear(3, 4)\n"
            "opt = torch.optim.SGD([*enc.parameters(), *dec.parameters()], lr=0.1)\n"
            "x = torch.randn(5, 4)\n"
            "codes, feats = enc(x).chunk(2, dim=1)\n"
            "loss = dec(codes).pow(2).mean()\n"
            "opt.zero_grad()\n"
            "loss.backward(retain_graph=True)\n"
            "opt.step()\n"
            "loss2 = dec(feats).abs().mean()\n"
            "opt.zero_grad()\n"
            "loss2.backward()\n"
            "opt.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "enc = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))\n"
            "dec = nn.Linear(3, 4)\n"
            "opt = torch.optim.SGD([*enc.parameters(), *dec.parameters()], lr=0.1)\n"
            "x = torch.randn(5, 4)\n"
            "codes, feats = enc(x).chunk(2, dim=1)\n"
            "loss = dec(codes).pow(2).mean()\n"
            "opt.zero_grad()\n"
            "loss.backward(retain_graph=True)\n"
            "opt.step()\n"
            "codes, feats = enc(x).chunk(2, dim=1)\n"
            "loss2 = dec(feats).abs().mean()\n"
            "opt.zero_grad()\n"
            "loss2.backward()\n"
            "opt.step()\n",
        ),
    )
    NOT_REWRITTEN = (
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "G = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 4))\n"
            "D = nn.Linear(4, 1)\n"
            "opt_g = torch.optim.SGD(G.parameters(), lr=0.1)\n"
            "fake = G(torch.randn(5, 2))\n"
            "for _ in range(3):\n"
            "    g_loss = -D(fake).mean()\n"
            "    opt_g.zero_grad()\n"
            "    g_loss.backward(retain_graph=True)\n"
            "    opt_g.step()\n"
            "print(fake.sum())\n",
            "`fake` is read after the loop, where the recomputed value would be the last iteration's",
        ),
    )
