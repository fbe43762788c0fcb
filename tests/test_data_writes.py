"""Writes autograd never sees: `p.data = new` after a save (FIP104), a parameter written through `.data` inside
`forward`, which then uses it (FIP106), and an in-place activation whose input is read again (FIP107).

Each program is labelled by running: `main()` returns the gradients, once as written and once as its author meant
it (`INTENDED`: the save kept intact, or the op computed out of place). When the two differ, `check` must report
the written line with the rule's code and severity; when they agree, nothing."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli

pytest.importorskip("torch")

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"

_NORM_LINEAR = """
    class NormLinear(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.weight = nn.Parameter(torch.randn(4, 4))

        def forward(self, x):
{body}


    def main():
        model = NormLinear()
        model(torch.ones(2, 4)).pow(2).sum().backward()
        return model.weight.grad.tolist()
"""

def _norm_linear(body: str) -> str:
    """The module above with `body` as its forward's body."""
    return _NORM_LINEAR.replace("{body}", textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 12))


# name -> (program, the program its author meant, (code, severity) `check` must give the marked line, or None)
PROGRAMS = {
    # `w.data = new` swaps w's memory without a version bump: `mul` saved w itself, so the backward reads new.
    "data_assigned_after_save": ("""
        def main():
            w = torch.ones(3, requires_grad=True)
            x = torch.full((3,), 2.0, requires_grad=True)
            y = (w * x).sum()
            w.data = torch.full((3,), 5.0)  # marked
            y.backward()
            return x.grad.tolist()
    """, """
        def main():
            w = torch.ones(3, requires_grad=True)
            x = torch.full((3,), 2.0, requires_grad=True)
            y = (w * x).sum()
            y.backward()
            w.data = torch.full((3,), 5.0)
            return x.grad.tolist()
    """, ("FIP104", "error")),
    "renormalised_in_forward": (_norm_linear("""
            self.weight.data = self.weight.data / self.weight.data.norm(dim=1, keepdim=True)  # marked
            return F.linear(x, self.weight)
    """), _norm_linear("""
            w = self.weight / self.weight.norm(dim=1, keepdim=True)
            return F.linear(x, w)
    """), ("FIP106", "warning")),
    "renormalised_in_place_in_forward": (_norm_linear("""
            self.weight.data.div_(self.weight.data.norm(dim=1, keepdim=True))  # marked
            return F.linear(x, self.weight)
    """), _norm_linear("""
            w = self.weight / self.weight.norm(dim=1, keepdim=True)
            return F.linear(x, w)
    """), ("FIP106", "warning")),
    # The block's first layer is an in-place ReLU: it rectifies `input` itself, and the residual adds the rectified
    # values (VQ-VAE-2's ResBlock); nothing saved `input`, so nothing raises (FIP107).
    "inplace_relu_clobbers_skip": ("""
        def main():
            torch.manual_seed(0)
            conv = nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(2, 2, 1))
            input = torch.randn(1, 2, 3, 3)
            out = conv(input)  # marked
            out += input
            return out.tolist()
    """, """
        def main():
            torch.manual_seed(0)
            conv = nn.Sequential(nn.ReLU(), nn.Conv2d(2, 2, 1))
            input = torch.randn(1, 2, 3, 3)
            out = conv(input)
            out += input
            return out.tolist()
    """, ("FIP107", "warning")),
    # Under `torch.no_grad()` the write is outside autograd on purpose (a constraint), and says so.
    "renormalised_under_no_grad": (_norm_linear("""
        with torch.no_grad():
            self.weight.div_(self.weight.norm(dim=1, keepdim=True))
        return F.linear(x, self.weight)
    """), None, None),
}


def _dedented(text: str) -> str:
    return HEADER + textwrap.dedent(text).strip("\n") + "\n"


def _result(source: str) -> object:
    scope = {"__name__": "program"}
    exec(compile(source, "<program>", "exec"), scope)
    return scope["main"]()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_data_write(name: str, tmp_path: Path) -> None:
    program, intended, expected = PROGRAMS[name]
    source = _dedented(program)
    if intended is not None:
        differs = _result(source) != _result(_dedented(intended))
        assert differs is (expected is not None), f"{name}: the label is not what running it shows"
        (tmp_path / "intended.py").write_text(_dedented(intended), encoding="utf-8")
    (tmp_path / "program.py").write_text(source, encoding="utf-8")
    proc = cli("check", "--no-cache", "--format", "json", *sorted(p.name for p in tmp_path.iterdir()), cwd=tmp_path)
    found = [(Path(d["path"]).name, d["line"], d["code"], d["severity"])
             for d in json.loads(proc.stdout)["diagnostics"] if d["severity"] in ("error", "warning")]
    marked = next((i for i, line in enumerate(source.splitlines(), 1) if line.endswith("# marked")), 0)
    assert found == ([("program.py", marked, *expected)] if expected else []), found
