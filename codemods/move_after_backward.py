"""Strategy `move_after_backward`: a statement that updates tensors a pending backward still needs (a weight clip,
a max-norm renorm, an EMA, an optimizer step) moves after that backward and the optimizer steps that directly
follow it. For an optimizer step placed between a forward and a second backward (GAN, actor-critic), the step
moves after that backward, which is restricted to the parameters it is meant to update
(`g_loss.backward(inputs=list(G.parameters()))`), so that the moved step still sees only its own gradients.

Always unsafe: the update now runs later (after the backward, and for a weight constraint after the optimizer
step, on the updated weights), and that backward computes the gradients of the weights as the forward used them.
Offered only when the statement and the backward stand in the same block and nothing between them mentions what
the statement does.
"""

from __future__ import annotations

from typing import Optional, Sequence

import libcst as cst

from codemods._base import BlockRewrite
from fixinplace.facts import Span

NAME = "move_after_backward"


class MoveAfterBackward(BlockRewrite):
    """The statement starting at `move` put right after the statement starting at `after` (same block); with
    `inputs`, the `.backward(...)` call of the statement at `backward` gets `inputs=<inputs>`."""

    NAME = NAME
    DESCRIPTION = "Move an update that a pending backward breaks to after that backward (and its optimizer step)."

    def rewrite_block(self, original: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode]) -> Optional[list]:
        move: Span = self.anchor["move"]  # type: ignore[assignment]
        after: Span = self.anchor["after"]  # type: ignore[assignment]
        i = self.index_starting(original, move.line)
        j = self.index_starting(original, after.line)
        if i is None or j is None or not i < j:
            return None
        body = list(updated)
        moved = body.pop(i)
        body.insert(j, moved)  # j shifted down by one with the pop: right after the `after` statement
        self.applies()
        return body

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        inputs = self.anchor.get("inputs")
        backward: Optional[Span] = self.anchor.get("backward")  # type: ignore[assignment]
        if not inputs or backward is None or not isinstance(updated.func, cst.Attribute) \
                or updated.func.attr.value != "backward" or not self.starts_line(original, backward.line):
            return updated
        args = list(updated.args)
        if args:
            args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
        args.append(cst.Arg(value=cst.parse_expression(str(inputs)), keyword=cst.Name("inputs"),
                            equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                                  whitespace_after=cst.SimpleWhitespace(""))))
        return updated.with_changes(args=args)

    EXAMPLES = (
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))\n"
            "opt = torch.optim.SGD(critic.parameters(), lr=0.1)\n"
            "loss = critic(torch.randn(4, 2)).mean()\n"
            "with torch.no_grad():\n"
            "    for p in critic.parameters():\n"
            "        p.clamp_(-0.01, 0.01)\n"
            "opt.zero_grad()\n"
            "loss.backward()\n"
            "opt.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))\n"
            "opt = torch.optim.SGD(critic.parameters(), lr=0.1)\n"
            "loss = critic(torch.randn(4, 2)).mean()\n"
            "opt.zero_grad()\n"
            "loss.backward()\n"
            "opt.step()\n"
            "with torch.no_grad():\n"
            "    for p in critic.parameters():\n"
            "        p.clamp_(-0.01, 0.01)\n",
        ),
        (
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "G, D = nn.Linear(3, 2), nn.Linear(2, 1)\n"
            "g_opt = torch.optim.SGD(G.parameters(), lr=0.1)\n"
            "d_opt = torch.optim.SGD(D.parameters(), lr=0.1)\n"
            "d_fake = D(G(torch.randn(4, 3)))\n"
            "d_loss = d_fake.mean()\n"
            "d_opt.zero_grad()\n"
            "d_loss.backward(retain_graph=True)\n"
            "d_opt.step()\n"
            "g_loss = -d_fake.mean()\n"
            "g_opt.zero_grad()\n"
            "g_loss.backward()\n"
            "g_opt.step()\n",
            "import torch\n"
            "from torch import nn\n"
            "\n"
            "G, D = nn.Linear(3, 2), nn.Linear(2, 1)\n"
            "g_opt = torch.optim.SGD(G.parameters(), lr=0.1)\n"
            "d_opt = torch.optim.SGD(D.parameters(), lr=0.1)\n"
            "d_fake = D(G(torch.randn(4, 3)))\n"
            "d_loss = d_fake.mean()\n"
            "d_opt.zero_grad()\n"
            "d_loss.backward(retain_graph=True)\n"
            "g_loss = -d_fake.mean()\n"
            "g_opt.zero_grad()\n"
            "g_loss.backward(inputs=list(G.parameters()))\n"
            "g_opt.step()\n"
            "d_opt.step()\n",
        ),
    )
