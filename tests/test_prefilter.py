"""The text pre-filter never drops a file that `check` would report on, and does skip files without writes."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest
from clirun import cli

from fixinplace.engine import read_source
from fixinplace.optable import OpTable
from fixinplace.prefilter import INPLACE_FLAG_NAMES, LIBRARY_WRITE_NAMES, might_write_in_place

REPO = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    "src",
    [
        "x.add_(1)\n",
        "torch.relu_(x)\n",
        "nn.init.zeros_(w)\n",
        "f = x.add_\nf(1)\n",  # a bound method taken first
        "getattr(x, 'mul_')(2)\n",
        "from torch.nn.init import normal_ as init\ninit(w)\n",
        "x.__iadd__(y)\n",
        "x.__setitem__(0, v)\n",
        "x += 1\n", "x -= 1\n", "x *= 2\n", "x /= 2\n", "x //= 2\n", "x %= 2\n", "x **= 2\n", "x @= m\n",
        "x &= m\n", "x |= m\n", "x ^= m\n", "x <<= 1\n", "x >>= 1\n",
        "y[0] = 1\n", "y[0]=1\n", "(y[0]) = 1\n", "y[0] = z[0] = 1\n",
        "y[0], z = 1, 2\n", "z, y[0] = 1, 2\n", "(y[0],\n z) = 1, 2\n", "y[0]: float = 1\n",
        "for y[0] in range(3):\n    pass\n", "[0 for y[0] in range(3)]\n", "with f() as y[0]:\n    pass\n",
        "torch.add(a, b, out=c)\n", "torch.add(a, b, **{'out': c})\n", 'torch.add(a, b, **{"out": c})\n',
        "F.relu(h, inplace=True)\n", "F.relu(h, flag)\n", "F.leaky_relu(h, 0.2, True)\n",
        "nn.ReLU(True)\n", "from torch.nn import ReLU as R\nR(True)\n", "act = nn.SiLU\nact(True)\n",
        "F.dropout(x, 0.5, True, True)\n", "nn.Dropout2d(0.1, True)\n", "nn.Threshold(0.1, 20, True)\n",
        "opt.step()\n", "scaler.step(opt)\n", "s = opt.step\ns()\n",
        "w.data = z\n",  # gives w other memory without a version bump: a silent write to what autograd saved
    ],
)
def test_keeps_every_write_form(src):
    assert might_write_in_place(src)


@pytest.mark.parametrize(
    "src",
    [
        "x = 1\n",
        "import os\nprint(os.getcwd())\n",
        "if a == b or a <= b or a >= b or a != b:\n    pass\n",
        "y = x[0] == 1\n",
        "f(a=-1)\n",
        "def __init__(self):\n    self.w = torch.zeros(3)\n",  # attribute assignment is no write
        "x.requires_grad = True\n",
        "output = model(x)\nsteps = 3\n",
    ],
)
def test_skips_text_without_write_forms(src):
    assert not might_write_in_place(src)


def test_covers_every_inplace_flag_and_method_of_the_table():
    table = OpTable.load()
    names = {q.rsplit(".", 1)[-1] for q in table.functions() if table.function(q).inplace_param}
    names |= {m for m in table.modules() if table.module(m).inplace_param}
    assert names, "the table lists functions and modules with an inplace flag"
    missing = {n for n in names if n.lower() not in INPLACE_FLAG_NAMES}
    assert not missing, f"add these to prefilter.INPLACE_FLAG_NAMES: {sorted(missing)}"
    for name in names:  # positional flag through any spelling of the name
        assert might_write_in_place(f"m = {name}\nm(x, True)\n"), name
    for method in table.inplace_methods():
        assert might_write_in_place(f"getattr(x, '{method}')(y)\n"), method


def test_every_library_write_the_table_measured_is_covered():
    table = OpTable.load()
    names = {q.rsplit(".", 1)[-1] for q in table.functions() if table.function(q).may_write}
    names |= {m for m in table.modules() if table.module(m).delegate
              and table.function(table.module(m).delegate) is not None
              and table.function(table.module(m).delegate).may_write}
    names = {n for n in names if not n.endswith("_")}  # named like an in-place write already
    assert {"embedding", "Embedding"} <= names, "the table measures F.embedding(max_norm=) writing its weight"
    missing = {n for n in names if not any(w in n.lower() for w in LIBRARY_WRITE_NAMES)}
    assert not missing, f"add these to prefilter.LIBRARY_WRITE_NAMES: {sorted(missing)}"
    assert might_write_in_place("emb = nn.Embedding(9, 4, max_norm=1.0)\nemb(ids)\n")


def _corpus(packages: tuple[str, ...]) -> list[str]:
    paths = [str(REPO / "fixtures" / "check")]
    spec = importlib.util.find_spec("torch")
    if spec is not None and spec.submodule_search_locations:
        root = Path(list(spec.submodule_search_locations)[0])
        paths += [str(root / package) for package in packages]
    return paths


def _diagnostics(paths: list[str], tmp_path: Path, prefilter: bool) -> list[dict]:
    env = {k: v for k, v in os.environ.items() if k != "FIXINPLACE_NO_PREFILTER"}
    if not prefilter:
        env["FIXINPLACE_NO_PREFILTER"] = "1"
    run = cli("check", "--format", "json", "--severity", "info", "--no-cache", *paths, cwd=tmp_path, env=env)
    assert run.returncode in (0, 1, 2), run.stderr[-2000:]
    return json.loads(run.stdout)["diagnostics"]


@pytest.mark.parametrize("packages", [("optim", "utils/data"), pytest.param(("nn", "optim"), marks=pytest.mark.slow)],
                         ids=["optim-data", "nn-optim"])
def test_check_reports_the_same_with_and_without_the_filter(tmp_path, packages: tuple[str, ...]):
    """Over fixtures/check and packages of the installed torch (every severity)."""
    paths = _corpus(packages)
    if len(paths) == 1:
        pytest.skip("torch is not installed: only the fixtures would be compared")
    from fixinplace.discovery import discover
    from fixinplace.settings import Settings

    files = discover(paths, Settings(project_root=tmp_path)).files
    skipped = [f for f in files if not might_write_in_place(read_source(f))]
    assert len(skipped) >= 10, "the corpus must contain files the filter skips, or this test proves nothing"
    with_filter = _diagnostics(paths, tmp_path, prefilter=True)
    without = _diagnostics(paths, tmp_path, prefilter=False)
    assert with_filter == without
    assert len(with_filter) > 50  # the fixtures alone have many
