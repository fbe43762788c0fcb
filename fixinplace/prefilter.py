"""The cheap text pre-filter: files whose text cannot hold an in-place write are not analysed (only parsed, so
that a syntax error is still reported).

Every diagnostic of the analysis is reported at a *write site*, and `fixinplace.analysis.calls` creates write
sites in exactly these places (each followed by the text that any spelling of it must contain):

    a call whose method or function name ends in `_`      an identifier ending in one `_` (`add_`, `zeros_`,
      (`x.add_(1)`, `torch.relu_(x)`, `nn.init.zeros_(w)`,   also an alias's import or `getattr(x, "add_")`),
      also through aliases and `getattr`)                   or an in-place dunder (`__iadd__`, `__setitem__`)
    an augmented assignment (`x += y`, `y[i] *= 2`)       one of `+= -= *= /= //= %= **= @= &= |= ^= <<= >>=`
                                                          (one token each: they cannot be split)
    an assignment to a subscript (`y[i] = v`, also in a   `]` then `=` (`y[0] = v`, `(y[0]) = v`), `]` then
      tuple, an annotated assignment, a `for` or `with`     `,` and a later `=` (on any line), `]: T =`,
      target, a comprehension's target)                     `for ... ] in`, `as ... ]`
    an `out=` argument                                    `out=`, or `"out"` / `'out'` (a `**kwargs` dict)
    an assignment to a tensor's `.data` (`p.data = new`)  `.data` then `=`
    an `inplace` flag, by keyword or positionally         `inplace`, or the name of a function or module that
      (`F.relu(x, True)`, `nn.ReLU(True)`)                  takes one (`relu`, `ReLU`, `dropout`, ...): the
                                                          name appears at the call or where it was imported
    an optimizer's `step()` (also `scaler.step(opt)`)     the word `step`
    a library call that writes an argument, parameter     the name of such a function or module (`embedding`,
      or buffer (`F.embedding(x, w, max_norm=1.0)`)         `Embedding`, ...), as the table measured

A file whose text has none of these has no write site, so the analysis would report nothing: it is parsed (a
syntax error is reported, as for any file) but not analysed. The patterns are deliberately loose (they match
comments, strings and unrelated code): a false match costs an analysis, a missed form would hide a hazard.

`FIXINPLACE_NO_PREFILTER=1` in the environment turns the filter off (every file is analysed); the tests use it to
check that the filter never changes what `check` reports.
"""

from __future__ import annotations

import os
import re

#: Augmented-assignment operators, checked with `in` (fastest). `//=`, `**=` contain `/=`, `*=`.
AUGMENTED = ("+=", "-=", "*=", "/=", "%=", "@=", "&=", "|=", "^=", "<<=", ">>=")

#: Last names of the functions and modules that take an `inplace` flag (from the saved-tensor table; a test checks
#: that every such name in the shipped table is covered). Matched as substrings, case-insensitively.
INPLACE_FLAG_NAMES = (
    "relu", "relu6", "leaky_relu", "leakyrelu", "rrelu", "elu", "celu", "selu", "silu", "mish", "threshold",
    "hardtanh", "hardswish", "hardsigmoid",
    "dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout", "alphadropout", "feature_alpha_dropout",
    "featurealphadropout",
)

#: Last names of the functions and modules that write an argument, a parameter or a buffer in place without being
#: named like it (`F.embedding(x, w, max_norm=1.0)`, `nn.Embedding(..., max_norm=1.0)`), as the table measured (a
#: test checks that every such name in the shipped table is covered). Matched as substrings, case-insensitively.
LIBRARY_WRITE_NAMES = ("embedding", "instance_norm", "instancenorm", "module_load")

_NAMES = INPLACE_FLAG_NAMES + LIBRARY_WRITE_NAMES

# Each pattern starts with a literal character (so `re` scans for it quickly) and is as loose as is cheap.
_PATTERNS = tuple(re.compile(p) for p in (
    r"_(?<=[^\W_]_)(?!\w)",  # an identifier ending in one `_`: add_, relu_, zeros_ (not dunders: they end in `__`)
    r"__(?:i(?:add|and|div|floordiv|lshift|matmul|mod|mul|or|pow|rshift|sub|truediv|xor)|setitem)__",
    r"\][\s)]*=(?!=)",  # y[0] = v, (y[0]) = v, y[0]=v
    r"\]\s*:[^\n=]*=(?!=)",  # y[0]: T = v
    r"\][\s)\]]*,[^=]*?(?<![=!<>])=(?!=)",  # y[0], z = v; also (y[0],\n z) = v: up to the next `=`, any line
    r"for\s[^\n]*?\][^\n]*?\bin\b",  # for y[0] in ..., [... for y[0] in ...]
    r"as\s[^\n]*?\]",  # with f() as y[0]:
    r"out(?<!\wout)(?:\s*=(?!=)|(?<=[\"']out)[\"'])",  # out= argument, or "out" in a **kwargs dict
    r"step(?<!\wstep)(?!\w)",  # optimizer.step(), scaler.step(optimizer)
    r"\.data\s*=(?!=)",  # p.data = new
))


def enabled() -> bool:
    """Whether the pre-filter is on (`FIXINPLACE_NO_PREFILTER=1` turns it off)."""
    return os.environ.get("FIXINPLACE_NO_PREFILTER", "") in ("", "0")


def might_write_in_place(source: str) -> bool:
    """False only when the text has none of the in-place write forms above (so the analysis would report nothing)."""
    if "inplace" in source or any(op in source for op in AUGMENTED):
        return True
    if any(p.search(source) for p in _PATTERNS):
        return True
    lowered = source.lower()
    return any(name in lowered for name in _NAMES)  # substrings: looser than whole words
