"""Strategy `detach_carried_state`: the state a loop carries from one iteration into the next is detached, so that
each iteration's backward stops at its own forward (truncated backpropagation through time).

A recurrent state handed from one training step to the next (`out, h = rnn(x, h)`, or `h = h_next` at the end of
the iteration) keeps the previous iteration's graph; the optimizer step at the end of that iteration updates the
weights that graph saved, and the next backward, which reaches back through the state, fails. Detaching the state
where it is handed over (`h = h_next.detach()`), or before the forward that reads and rebinds it
(`h = h.detach()`), is the repair maintainers make (PyTorch's word-language model calls it `repackage_hidden`).

Always unsafe: the gradient no longer flows into earlier iterations, which is what each step's update then uses.
Offered only where the carried value is surely one tensor (a tuple of states has no `.detach()`).
"""

from __future__ import annotations

from typing import Union

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import replacing, statement, with_leading

NAME = "detach_carried_state"


class DetachCarriedState(InPlaceFix):
    """At the statement starting at `carry`: `carried = carried_from.detach()` in place of `carried = carried_from`,
    or, with no `carried_from`, `carried = carried.detach()` inserted before it."""

    NAME = NAME
    DESCRIPTION = "Detach the state a loop carries into its next iteration, so each backward stops at its iteration."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine
                                  ) -> Union[cst.BaseStatement, cst.FlattenSentinel]:
        carry = self.anchor["carry"]
        if self.applied or not self.starts_line(original, carry.line) or len(updated.body) != 1:  # type: ignore
            return updated
        carried, source = str(self.anchor["carried"]), str(self.anchor.get("carried_from", ""))
        if source:
            small = updated.body[0]
            if not (isinstance(small, cst.Assign) and isinstance(small.value, cst.Name)
                    and small.value.value == source):
                return updated
            self.applies()
            return replacing(statement(f"{carried} = {source}.detach()\n", self.module), updated)  # type: ignore
        detach = with_leading(statement(f"{carried} = {carried}.detach()\n", self.module), updated)
        self.applies()
        return cst.FlattenSentinel([detach, updated.with_changes(leading_lines=())])

    EXAMPLES = (
        (
            "import torch\n"
            "\n"
            "rnn = torch.nn.RNN(input_size=1, hidden_size=1)\n"
            "opt = torch.optim.SGD(rnn.parameters(), lr=0.01)\n"
            "xs = torch.randn(5, 1, 1)\n"
            "h = torch.zeros(1, 1)\n"
            "for x in xs:\n"
            "    opt.zero_grad()\n"
            "    out, h_next = rnn(x, h)\n"
            "    loss = out.pow(2).mean()\n"
            "    loss.backward(retain_graph=True)\n"
            "    opt.step()\n"
            "    h = h_next  # the state for the next step\n",
            "import torch\n"
            "\n"
            "rnn = torch.nn.RNN(input_size=1, hidden_size=1)\n"
            "opt = torch.optim.SGD(rnn.parameters(), lr=0.01)\n"
            "xs = torch.randn(5, 1, 1)\n"
            "h = torch.zeros(1, 1)\n"
            "for x in xs:\n"
            "    opt.zero_grad()\n"
            "    out, h_next = rnn(x, h)\n"
            "    loss = out.pow(2).mean()\n"
            "    loss.backward(retain_graph=True)\n"
            "    opt.step()\n"
            "    h = h_next.detach()  # the state for the next step\n",
        ),
        (
            "import torch\n"
            "\n"
            "cell = torch.nn.GRUCell(3, 4)\n"
            "head = torch.nn.Linear(4, 1)\n"
            "opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)\n"
            "h = torch.zeros(2, 4)\n"
            "for x in torch.randn(6, 2, 3):\n"
            "    h = cell(x, h)\n"
            "    loss = head(h).pow(2).mean()\n"
            "    opt.zero_grad()\n"
            "    loss.backward(retain_graph=True)\n"
            "    opt.step()\n",
            "import torch\n"
            "\n"
            "cell = torch.nn.GRUCell(3, 4)\n"
            "head = torch.nn.Linear(4, 1)\n"
            "opt = torch.optim.SGD([*cell.parameters(), *head.parameters()], lr=0.01)\n"
            "h = torch.zeros(2, 4)\n"
            "for x in torch.randn(6, 2, 3):\n"
            "    h = h.detach()\n"
            "    h = cell(x, h)\n"
            "    loss = head(h).pow(2).mean()\n"
            "    opt.zero_grad()\n"
            "    loss.backward(retain_graph=True)\n"
            "    opt.step()\n",
        ),
    )
    NOT_REWRITTEN = (
        (
            "import torch\n"
            "\n"
            "lstm = torch.nn.LSTM(input_size=1, hidden_size=1)\n"
            "opt = torch.optim.SGD(lstm.parameters(), lr=0.01)\n"
            "state = (torch.zeros(1, 1, 1), torch.zeros(1, 1, 1))\n"
            "for x in torch.randn(4, 1, 1, 1):\n"
            "    out, state = lstm(x, state)\n"
            "    loss = out.pow(2).mean()\n"
            "    opt.zero_grad()\n"
            "    loss.backward(retain_graph=True)\n"
            "    opt.step()\n",
            "the carried state is a tuple `(h, c)`: it has no `.detach()`, each part must be detached",
        ),
    )
