"""Strategy `clone_before_write`: insert `NAME = NAME.clone()` before the statement that writes NAME.

Exact for every write form: the in-place op still runs, on a copy, so setitem's casting and broadcasting,
integer semantics and duplicate indices are kept, while the tensor autograd saved stays intact.

Flagged and fixed:
    uexp = u.exp(); loss = uexp.sum(); uexp[0] = 666   →   ...; uexp = uexp.clone(); uexp[0] = 666
Left alone: writes the analysis found safe (the codemod is only called for hazards).
"""

from __future__ import annotations

import libcst as cst

from codemods._util import statement, with_leading

NAME = "clone_before_write"


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """Two statements: the clone, then the original write."""
    root = diagnostic.datum("root")
    if not root:
        return None
    clone = with_leading(statement(f"{root} = {root}.clone()\n", module), original)
    return cst.FlattenSentinel([clone, original.with_changes(leading_lines=())])


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "u = torch.ones(3, requires_grad=True)\n"
        "uexp = u.exp()\n"
        "loss = uexp.sum()\n"
        "uexp[0] = 666\n"
        "loss.backward()\n",
        "import torch\n"
        "u = torch.ones(3, requires_grad=True)\n"
        "uexp = u.exp()\n"
        "loss = uexp.sum()\n"
        "uexp = uexp.clone()\n"
        "uexp[0] = 666\n"
        "loss.backward()\n",
    ),
)
