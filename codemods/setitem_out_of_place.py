"""Strategy `setitem_out_of_place`: a subscript assignment of a number written out of place.

- a boolean mask computed from the tensor itself: `y[y < 0] = 0.0` → `y = y.masked_fill(y < 0, 0.0)` (both
  styles);
- with `fix-style = "functional"` (no in-place op left, for torch.func and torch.compile users):
  an int on one dimension, `y[i] = 0.0` / `y[:, i] = 0.0` / `y[..., i] = 0.0` →
  `y = torch.select_scatter(y, torch.full_like(y[i], 0.0), 0, i)`;
  a slice on one dimension, `y[a:b] = 0.0` → `y = torch.slice_scatter(y, torch.full_like(y[a:b], 0.0), 0, a, b)`;
  an integer index tensor, `y[idx] = 0.0` → `y = y.index_put((idx,), torch.tensor(0.0, dtype=y.dtype,
  device=y.device))`.

Each form has the assignment's value, dtype, shape and gradient: the mask has `y`'s shape (it is computed
elementwise from `y`), `full_like` makes the value in `y`'s dtype and the selected part's shape, the number is
cast as setitem casts it, and the overwritten elements get no gradient, as with setitem. Offered only for a
local tensor nothing else aliases (else unsafe) whose name is read after the write; other subscript writes keep
the clone before the write.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods._base import InPlaceFix
from codemods._util import code_of, replacing, statement, torch_name

NAME = "setitem_out_of_place"


def _dim(elements: list[cst.SubscriptElement]) -> Optional[tuple[int, int]]:
    """(the dimension of the one int or slice part, its position) when every other part is `:` or a leading
    `...`; None otherwise."""
    kinds = []
    for e in elements:
        s = e.slice
        if isinstance(s, cst.Slice):
            kinds.append("full" if s.lower is s.upper is s.step is None else "part")
        elif isinstance(s, cst.Index) and isinstance(s.value, cst.Ellipsis):
            kinds.append("ellipsis")
        else:
            kinds.append("part")
    if kinds.count("part") != 1 or kinds.count("ellipsis") > 1:
        return None
    k = kinds.index("part")
    if "ellipsis" in kinds:
        if kinds.index("ellipsis") != 0 or k == 0:
            return None
        return k - len(kinds), k  # counted from the end: `y[..., i]` is dimension -1
    return k, k


class SetitemOutOfPlace(InPlaceFix):
    """The assignment `name[index] = value` on `line` in the form `form` (masked_fill, select_scatter,
    slice_scatter, index_put)."""

    NAME = NAME
    DESCRIPTION = "Write a subscript assignment of a number out of place (masked_fill, select/slice_scatter, index_put)."

    def leave_SimpleStatementLine(self, original: cst.SimpleStatementLine, updated: cst.SimpleStatementLine):
        if self.applied or not self.starts_line(original, int(self.anchor["line"])) or len(updated.body) != 1:
            return updated
        small = updated.body[0]
        if not (isinstance(small, cst.Assign) and len(small.targets) == 1
                and isinstance(small.targets[0].target, cst.Subscript)):
            return updated
        target = small.targets[0].target
        name = str(self.anchor["name"])
        if code_of(target.value, self.module) != name:
            return updated
        new = self._rewrite(name, target, code_of(small.value, self.module), str(self.anchor["form"]))
        if new is None:
            return updated
        self.applies()
        return replacing(statement(f"{name} = {new}\n", self.module), updated)

    def _rewrite(self, name: str, target: cst.Subscript, value: str, form: str) -> Optional[str]:
        torch = torch_name(self.module)
        elements = list(target.slice)
        index = code_of(target, self.module)[len(name):]  # `[...]` as written
        if form == "masked_fill" and len(elements) == 1:
            return f"{name}.masked_fill({code_of(elements[0].slice.value, self.module)}, {value})"
        if torch is None:
            return None
        if form == "index_put" and len(elements) == 1:
            part = code_of(elements[0].slice.value, self.module)
            return (f"{name}.index_put(({part},), {torch}.tensor({value}, dtype={name}.dtype, "
                    f"device={name}.device))")
        where = _dim(elements)
        if where is None:
            return None
        dim, k = where
        part = elements[k].slice
        src = f"{torch}.full_like({name}{index}, {value})"
        if form == "select_scatter" and isinstance(part, cst.Index):
            return f"{torch}.select_scatter({name}, {src}, {dim}, {code_of(part.value, self.module)})"
        if form == "slice_scatter" and isinstance(part, cst.Slice):
            bounds = [code_of(b, self.module) if b is not None else "None" for b in (part.lower, part.upper)]
            step = code_of(part.step, self.module) if part.step is not None else "1"
            return f"{torch}.slice_scatter({name}, {src}, {dim}, {bounds[0]}, {bounds[1]}, {step})"
        return None

    EXAMPLES = (
        (
            "import torch\n"
            "\n"
            "\n"
            "def clipped(x, w):\n"
            "    y = torch.exp(x @ w)\n"
            "    y[y > 10.0] = 10.0\n"
            "    return y.sum(dim=1)\n",
            "import torch\n"
            "\n"
            "\n"
            "def clipped(x, w):\n"
            "    y = torch.exp(x @ w)\n"
            "    y = y.masked_fill(y > 10.0, 10.0)\n"
            "    return y.sum(dim=1)\n",
        ),
    )
