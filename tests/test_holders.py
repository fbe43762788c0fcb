"""Who else holds a written tensor decides whether rebinding the written place is a safe fix
(`fixinplace.analysis.holders`): a list the function reads afterwards, a name sharing a list's element, a caller's
name, an instance attribute. Each program is labelled by running it: under `no_grad` (where the in-place write runs
without error) the program and its rebound version return the same values exactly when no other holder saw the
write; in grad mode the original raises, so a fix is needed. The safe fix rebinds exactly in the first case."""

from __future__ import annotations

import pytest

from fixinplace.engine import analyse_source
from fixinplace.fix import fix_text
from fixinplace.settings import Settings

PROGRAMS = {
    # A feature pyramid's laterals: the list alone holds each tensor.
    "list_alone": ('''
def features(x):
    laterals = [torch.relu(x * w) for w in (1.0, 2.0)]
    laterals[0] += laterals[1]
    return laterals[0], laterals[1]
''', "    laterals[0] += laterals[1]\n", "    laterals[0] = laterals[0] + laterals[1]\n"),
    # The same, and a name that still holds the first lateral.
    "list_and_name": ('''
def features(x):
    first = torch.relu(x)
    laterals = [first, torch.relu(2.0 * x)]
    laterals[0] += laterals[1]
    return laterals[0], laterals[1], first
''', "    laterals[0] += laterals[1]\n", "    laterals[0] = laterals[0] + laterals[1]\n"),
    # The list is the caller's, who also holds the tensor by name.
    "caller_list": ('''
def top_down(laterals):
    laterals[0] += laterals[1]
    return laterals


def features(x):
    first = torch.relu(x)
    out = top_down([first, torch.relu(2.0 * x)])
    return out[0], out[1], first
''', "    laterals[0] += laterals[1]\n", "    laterals[0] = laterals[0] + laterals[1]\n"),
    # A list read afterwards holds the written name's tensor.
    "name_in_live_list": ('''
def features(x):
    h = torch.sigmoid(x)
    history = [h]
    h += 1
    return h, history[0]
''', "    h += 1\n", "    h = h + 1\n"),
    # A list that held it is never read again.
    "name_in_dead_list": ('''
def features(x):
    h = torch.sigmoid(x)
    shapes = [h]
    count = len(shapes)
    h += 1
    return h * count,
''', "    h += 1\n", "    h = h + 1\n"),
    # An attribute of the instance holds it.
    "attribute": ('''
class Cell(torch.nn.Module):
    def forward(self, x):
        h = torch.sigmoid(x)
        self.last = h
        h += 1
        return h


def features(x):
    cell = Cell()
    out = cell(x)
    return out, cell.last
''', "        h += 1\n", "        h = h + 1\n"),
}

MAIN = '''

def main():
    torch.manual_seed(0)
    x = torch.randn(4, 3, requires_grad=True)
    out = features(x)
    loss = sum(t.square().sum() for t in out)
    loss.backward()
    return {"x.grad": x.grad}


if __name__ == "__main__":
    main()
'''


def _run(text: str, torch):
    namespace: dict = {}
    exec(compile(text, "p.py", "exec"), namespace)  # noqa: S102 (our own program)
    torch.manual_seed(0)
    x = torch.randn(4, 3)
    with torch.no_grad():
        out = namespace["features"](x)
    return out, namespace


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_rebinding_is_safe_exactly_when_no_other_holder_sees_the_write(name: str) -> None:
    torch = pytest.importorskip("torch")
    body, write, rebound = PROGRAMS[name]
    text = "import torch\n\n" + body + MAIN
    assert write in text
    original, namespace = _run(text, torch)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        namespace["main"]()
    changed, _ = _run(text.replace(write, rebound), torch)
    keeps = len(original) == len(changed) and all(torch.equal(a, b) for a, b in zip(original, changed))
    assert keeps == (name in ("list_alone", "name_in_dead_list"))  # the label, by running

    line = text[:text.index(write)].count("\n") + 1
    assert any(d.code == "FIP101" and d.line == line for d in analyse_source(text, "p.py"))
    fixed = fix_text(text, "p.py", Settings()).source
    assert (rebound in fixed) == keeps
    if fixed != text:  # whatever safe fix applies keeps what the program computes where it runs
        patched, namespace = _run(fixed, torch)
        assert all(torch.equal(a, b) for a, b in zip(original, patched))
        namespace["main"]()
