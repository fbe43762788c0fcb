"""Strategy `wrap_no_grad`: a leaf update in grad mode (`w -= lr * w.grad`) goes under `with torch.no_grad():`.

Rebinding instead (`w = w - lr * w.grad`) would turn the leaf into a non-leaf and silently stop it training.
"""

from __future__ import annotations

import libcst as cst

NAME = "wrap_no_grad"


def _torch_name(module: cst.Module | None) -> str | None:
    """The name `torch` is imported under at module level (`import torch`, `import torch as th`)."""
    if module is None:
        return None
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, cst.Import):
                    for alias in small.names:
                        if module.code_for_node(alias.name) == "torch":
                            return alias.asname.name.value if alias.asname else "torch"  # type: ignore[union-attr]
    return None


def rewrite(original: cst.SimpleStatementLine, diagnostic, module: cst.Module | None):
    """`with torch.no_grad():` around the statement."""
    torch = _torch_name(module)
    if torch is None:
        return None
    inner = original.with_changes(leading_lines=())
    return cst.With(
        items=[cst.WithItem(item=cst.parse_expression(f"{torch}.no_grad()"))],
        body=cst.IndentedBlock(body=[inner]),
        leading_lines=original.leading_lines,
    )


# (before, after) programs: run as tests (tests/test_codemod_examples.py) and rendered into docs/rules.md.
EXAMPLES = (
    (
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "w -= 0.1 * w.grad\n",
        "import torch\n"
        "w = torch.randn(3, requires_grad=True)\n"
        "loss = (w * 2).sum()\n"
        "loss.backward()\n"
        "with torch.no_grad():\n"
        "    w -= 0.1 * w.grad\n",
    ),
)
