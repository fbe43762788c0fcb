"""A small slice of the stress run (`bench/stress.py`, issue 14): mutated project files through `check_source`,
`fix_text` (twice), the quick fixes and the real CLI; random incremental edits, with odd characters and line breaks,
to the real language server, whose diagnostics, fix-all, quick fix and hover are compared with this process's. The
same functions as the bench, with fewer programs and edits and a fixed seed; every defect kind counts."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest


def _load_bench():
    """bench/stress.py as a module (bench/ is not a package; its folder is kept off sys.path)."""
    path = Path(__file__).resolve().parents[1] / "bench" / "stress.py"
    spec = importlib.util.spec_from_file_location("fixinplace_bench_stress", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


stress = _load_bench()

SEED = 0


def test_fuzz_slice_finds_no_defect():
    tally = stress.Tally()
    stress.run_fuzz(20, SEED, tally, hypothesmith=0, cli=4)
    assert tally.stats["parsed by Python"] >= 10 and tally.stats["fixes applied"] >= 5, tally.stats
    assert tally.stats["through the CLI"] == 4
    assert tally.total == 0, stress.describe(tally)


def test_lsp_storm_slice_finds_no_defect():
    tally = stress.Tally()
    stress.lsp_storm(40, SEED, tally)
    assert tally.stats["LSP edits"] >= 40 and tally.stats["LSP checkpoints"] >= 4, tally.stats
    assert tally.stats["LSP diagnostics compared"] > 0 and tally.stats["LSP fix-alls compared"] > 0, tally.stats
    assert tally.total == 0, stress.describe(tally)


# The checks can fail: with `str.splitlines` numbering lines (the defect issue 14 fixed), they find defects.

def _splitlines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


PAGE_BREAKS = [  # LibCST drops a form feed before a statement; `fix` must keep it on the lines it does not rewrite
    "import torch\n\n\ndef f(x):\n    y = x.exp()\n\x0c    z = y * 2\n    y.add_(1)\n    return y, z\n",
    "\x0cimport torch\n\ndef f(x):\n    y = x.exp()\n    y.add_(1)\n    return y\n",
    "import torch\n\n\ndef f(x):\n    # a page\x0cbreak\n    y = x.exp()\n\x0c    z = y * 2\n    y.add_(1)\n"
    "    return y, z\n",
]


@pytest.mark.parametrize("text", PAGE_BREAKS)
def test_fuzz_checks_catch_splitlines_in_fix(monkeypatch, text: str):
    import fixinplace.fix.checked as checked
    from fixinplace.settings import Settings

    program = stress.Program("page break", text.encode(), "m.py")
    clean = stress.Tally()
    stress.fuzz_program(program, clean, Settings(), 120)
    assert clean.total == 0, stress.describe(clean)
    monkeypatch.setattr(checked, "split_lines", _splitlines)
    broken = stress.Tally()
    stress.fuzz_program(program, broken, Settings(), 120)
    assert broken.total > 0, broken.stats


def test_storm_replay_catches_splitlines_in_the_server_document(monkeypatch):
    import random

    import fixinplace.lsp.document as document

    class Quiet:
        def send(self, **message) -> None:
            pass

    def storm(tally: stress.Tally) -> None:
        run = stress.Storm(Quiet(), "file:///m.py", "/m.py", None, stress.STORM_DOC, tally)
        rng = random.Random(SEED)
        for _ in range(40):
            run.edit(rng)

    clean = stress.Tally()
    monkeypatch.setattr(stress, "PAST_END", 0.0)
    storm(clean)
    assert clean.total == 0, stress.describe(clean)
    monkeypatch.setattr(document, "split_lines", _splitlines)
    broken = stress.Tally()
    storm(broken)
    assert broken.defects["LSP document drifts from the client's"] > 0, stress.describe(broken)
