"""What every `fix` must guarantee, over every fixture program (fixtures/check/*.py and fixtures/fix/*/before.py),
with safe fixes and with unsafe fixes, in both fix styles:

* no applied fix leaves its target: every error or warning of the fixed text is one the original text had (same
  code, same place, the write's text unchanged) and none of them is a hazard a fix was applied to;
* no fix adds a hazard;
* the fixed text parses, and fixing it again changes nothing;
* a description never holds a placeholder: it quotes the line the rewrite wrote.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from fixinplace.engine import analyse_source
from fixinplace.fix import fix_text
from fixinplace.fix.checked import LineMap
from fixinplace.settings import Settings

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((REPO / "fixtures" / "check").glob("*.py")) + sorted((REPO / "fixtures" / "fix").glob("*/before.py"))
MODES = [(False, "readable"), (True, "readable"), (True, "functional")]


def _hazards(text: str) -> list:
    return [d for d in analyse_source(text, "p.py") if d.severity.value in ("error", "warning")]


@pytest.mark.parametrize("unsafe,style", MODES, ids=["safe", "unsafe", "unsafe-functional"])
@pytest.mark.parametrize("path", PROGRAMS, ids=[str(p.relative_to(REPO / "fixtures")) for p in PROGRAMS])
def test_fix_keeps_its_promises(path: Path, unsafe: bool, style: str) -> None:
    text = path.read_text(encoding="utf-8")
    settings = Settings(unsafe_fixes=unsafe, fix_style=style)
    result = fix_text(text, "p.py", settings)
    ast.parse(result.source)
    before, after = _hazards(text), _hazards(result.source)
    applied = {(d.code, d.line, d.column) for d in result.applied}
    lines = LineMap(text, result.source)
    unmatched = list(before)
    for d in after:
        match = next((o for o in unmatched if o.code == d.code and o.facts.text == d.facts.text
                      and lines.new_range(o.line, o.end_line)[0] <= d.line <= lines.new_range(o.line, o.end_line)[1]),
                     None)
        assert match is not None, f"the fix added a hazard or moved one: {d.line}:{d.column} {d.code} {d.message}"
        assert (match.code, match.line, match.column) not in applied, (
            f"an applied fix left its target: {match.line}:{match.column} {match.code}\n{result.source}")
        unmatched.remove(match)
    for d in result.applied:
        assert d.fix is not None and "{new}" not in d.fix.description and " ... `" not in d.fix.description
    again = fix_text(result.source, "p.py", settings)
    assert again.source == result.source and not again.applied, "fixing the fixed text again changed it"


def test_many_hazards_in_many_functions_cost_a_few_analyses_and_fix_as_one_at_a_time():
    """Fixing is not one analysis of the whole text per hazard: the first rewrites of many functions are made on
    each function alone and checked together. The result is what fixing each function on its own gives."""
    from fixinplace.fix.checked import fix_text
    from fixinplace.settings import Settings

    functions = [
        "def f{i}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n",
        "def g{i}(x):\n    e = x.exp()\n    s = e.sum()\n    e[0] = 0.0\n    return s + e.sum()\n",
        "class M{i}(torch.nn.Module):\n    def forward(self, x):\n        h = torch.sigmoid(x)\n        h *= 2\n"
        "        h.clamp_(0, 1)\n        return h\n",
    ]
    parts = [functions[i % 3].format(i=i) for i in range(60)]
    text = "import torch\n\n\n" + "\n\n".join(parts)
    result = fix_text(text, "many.py", Settings())
    alone = [fix_text("import torch\n\n\n" + part, "one.py", Settings()) for part in parts]
    assert result.source == "import torch\n\n\n" + "\n\n".join(r.source.split("\n\n\n", 1)[1] for r in alone)
    assert len(result.applied) == sum(len(r.applied) for r in alone) == 60 and not result.remaining
    assert result.analyses <= 6, result.analyses  # one per hazard was 61


def test_twin_hazards_are_told_apart_across_fixes():
    """Two writes with the same code and text: fixing the first does not make the second answer for it (`only`,
    as `fix --verify` uses it to keep just the fixes that verified), and each fix is reported at its own line."""
    from fixinplace.fix.checked import fix_text
    from fixinplace.settings import Settings

    twin = "def {name}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"
    text = "import torch\n\n\n" + twin.format(name="f") + "\n\n" + twin.format(name="g")
    first = fix_text(text, "m.py", Settings(), only=lambda h: h.line == 6)
    assert [d.line for d in first.applied] == [6] and [d.line for d in first.remaining] == [12]
    second = fix_text(text, "m.py", Settings(), only=lambda h: h.line == 12)
    assert [d.line for d in second.applied] == [12] and [d.line for d in second.remaining] == [6]
    assert [d.line for d in fix_text("\x0c" + text, "m.py", Settings()).applied] == [6, 12]


def test_two_hazards_at_one_place_are_two_fixes():
    """Two in-place modules of one Sequential write at the same call: two hazards at one place, each fixed once,
    and `only` picks one of them."""
    from fixinplace.engine import analyse_source
    from fixinplace.fix.checked import fix_text
    from fixinplace.settings import Settings

    text = (REPO / "bench" / "fixsets" / "dev" / "021_dropout_inplace_after_relu_inplace" / "program.py").read_text()
    hazards = [d for d in analyse_source(text, "m.py") if d.code == "FIP101"]
    assert len(hazards) == 2 and len({(d.line, d.column) for d in hazards}) == 1
    both = fix_text(text, "m.py", Settings())
    assert [(d.line, d.code) for d in both.applied] == [(hazards[0].line, "FIP101")] * 2 and not both.remaining
    assert {d.fix.description.split("(line ")[1][:2] for d in both.applied} == {"9)", "10"}
    one = fix_text(text, "m.py", Settings(), only=lambda h: h.message == hazards[0].message)
    assert len(one.applied) == 1 and len(one.remaining) == 1


def test_fix_text_stops_when_asked():
    """The language server's fix-all of a text the editor has left stops at its next rewrite."""
    from fixinplace.fix import FixStopped, fix_text
    from fixinplace.settings import Settings

    text = "import torch\n\n\n" + "\n\n".join(f"def f{i}(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n"
                                              for i in range(30))
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(FixStopped):
        fix_text(text, "m.py", Settings(), stop=stop)
    assert len(asked) == 4
    assert len(fix_text(text, "m.py", Settings(), stop=lambda: False).applied) == 30


LSTM_OUTPUT_WRITTEN = '''\
import torch
from torch import nn


def main():
    torch.manual_seed(0)
    lstm = nn.LSTM(4, 5, batch_first=True)
    x = torch.randn(2, 3, 4)
    mask = torch.zeros(2, 3, 5, dtype=torch.bool)
    mask[:, -1] = True
    out, _ = lstm(x)
    out.masked_fill_(mask, 0.0)
    loss = out.sum()
    loss.backward()
    return loss
'''


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
def test_a_call_returning_a_tuple_is_never_cloned_whole(unsafe: bool) -> None:
    """`nn.LSTM` saves its output, but the call returns `(output, (h, c))`: `.clone()` of the call would clone a
    tuple (AttributeError). Whatever is applied, the fixed program runs; with unsafe fixes it trains."""
    torch = pytest.importorskip("torch")
    fixed = fix_text(LSTM_OUTPUT_WRITTEN, "p.py", Settings(unsafe_fixes=unsafe)).source
    assert "lstm(x).clone()" not in fixed
    namespace: dict = {}
    exec(compile(fixed, "p.py", "exec"), namespace)  # noqa: S102 (our own program)
    if unsafe:
        assert isinstance(namespace["main"](), torch.Tensor)
    else:
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            namespace["main"]()  # no safe fix applies: the program is left as it was


ALIASED_LEAF_ACTIVATION = '''\
import torch
import torch.nn.functional as F


def act():
    torch.manual_seed(0)
    x = torch.randn(4, 3, requires_grad=True)
    inp = x
    x = F.relu(x, inplace=True)
    return inp, x


def main():
{body}


if __name__ == "__main__":
    main()
'''


@pytest.mark.parametrize("contexts", ["grad", "grad_and_no_grad"])
def test_dropping_inplace_on_an_aliased_leaf_is_safe_only_where_every_run_raises(contexts: str) -> None:
    """`inp = x`, then `F.relu(x, inplace=True)` on a leaf that requires grad: run in grad mode, PyTorch refuses
    the write every time, so `inp` never saw it and dropping `inplace=True` is safe (the fixed program runs and
    `inp` is the unwritten input). Also run under `no_grad`, the write happens there and `inp` sees it: dropping
    it changes that run, so it stays unsafe (labelled by running both)."""
    torch = pytest.importorskip("torch")
    body = "    return act()" if contexts == "grad" else \
        "    with torch.no_grad():\n        seen = act()\n    return seen, act()"
    text = ALIASED_LEAF_ACTIVATION.format(body=body)
    namespace: dict = {}
    exec(compile(text, "p.py", "exec"), namespace)  # noqa: S102 (our own program)
    with torch.no_grad():
        inp, out = namespace["act"]()
    assert torch.equal(inp, out) and bool((inp >= 0).all())  # under no_grad the alias sees the write
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        namespace["act"]()  # in grad mode every run raises
    fixed = fix_text(text, "p.py", Settings()).source
    if contexts == "grad":
        assert "x = F.relu(x)\n" in fixed
        exec(compile(fixed, "p.py", "exec"), namespace)  # noqa: S102
        inp, out = namespace["main"]()
        assert bool((inp < 0).any()) and bool((out >= 0).all())
    else:
        assert fixed == text  # only an unsafe fix applies
        assert "x = F.relu(x)\n" in fix_text(text, "p.py", Settings(unsafe_fixes=True)).source
