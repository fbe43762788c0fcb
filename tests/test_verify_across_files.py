"""`fixinplace verify` of a hazard reported at a call and repaired in another file (real torch, real child
processes): the calling file runs once with that file as it is and once with its patched text, which is never
written. Labelled by running: the original raises at its backward, the patched project trains."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import child_env, cli

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

BLOCKS = '''import torch
from torch import nn


class Head(nn.Module):
    def __init__(self, dim, drop=None):
        super().__init__()
        layers = [nn.Linear(dim, dim), nn.ReLU()]
        if drop is not None:
            layers.append(nn.Dropout(p=drop, inplace=True))
        layers.append(nn.Linear(dim, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
'''

TRAIN = '''import torch

from blocks import Head


def main():
    torch.manual_seed(0)
    model = Head(4, drop=0.5)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(8, 4)
    losses = []
    for _ in range(2):
        opt.zero_grad()
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


if __name__ == "__main__":
    main()
'''

# The flag comes from the caller: blocks.py alone has nothing to fix, its change is the call's fix.
BLOCKS_FLAG = BLOCKS.replace("def __init__(self, dim, drop=None):", "def __init__(self, dim, drop=None, inplace=False):"
                             ).replace("inplace=True", "inplace=inplace")
TRAIN_FLAG = TRAIN.replace("Head(4, drop=0.5)", "Head(4, drop=0.5, inplace=True)")

# The same training written as a script: its module-level code calls into blocks.py.
SCRIPT = '''import torch

from blocks import Head

torch.manual_seed(0)
model = Head(4, drop=0.5)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
for _ in range(2):
    opt.zero_grad()
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
print(loss.item())
'''


def _project(tmp_path: Path, caller: str = TRAIN, blocks: str = BLOCKS) -> Path:
    (tmp_path / "blocks.py").write_text(blocks)
    (tmp_path / "train.py").write_text(caller)
    return tmp_path


def _runs(folder: Path, name: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, name], cwd=folder, env=child_env(), capture_output=True, text=True,
                          timeout=120)


def _verify(folder: Path, *args: str) -> tuple[int, list[dict], str]:
    proc = cli("verify", *args, "--device", "cpu", "--format", "json", cwd=folder, timeout=240)
    assert proc.returncode != 2, proc.stderr
    return proc.returncode, json.loads(proc.stdout)["results"], proc.stderr


def test_the_project_is_labelled_by_running(tmp_path):
    folder = _project(tmp_path)
    assert "modified by an inplace operation" in _runs(folder, "train.py").stderr
    (folder / "blocks.py").write_text(BLOCKS.replace("nn.Dropout(p=drop, inplace=True)", "nn.Dropout(p=drop)"))
    assert _runs(folder, "train.py").returncode == 0


def test_a_call_fixed_in_another_file_is_verified_through_the_caller(tmp_path):
    """`verify train.py`: the call's hazard is repaired in blocks.py (not named, never written); main() runs with
    blocks.py as it is (the reference: saved tensors kept intact) and with its patched text."""
    folder = _project(tmp_path)
    rc, rows, stderr = _verify(folder, "train.py", "--entry", "main")
    assert [(r["path"], r["function"], r["status"]) for r in rows] == [("train.py", "main", "verified")], rows
    row = rows[0]
    assert row["fixes"] == [{"line": 14, "code": "FIP101", "strategy": "remove_inplace", "applicability": "safe",
                             "made_in": ["blocks.py"]}]
    assert row["reference"] == "saved_tensor_copies" and row["max_abs_diff"] == {"outputs": 0.0, "grads": 0.0}
    assert rc == 0
    assert (folder / "blocks.py").read_text() == BLOCKS  # nothing written


def test_text_report_names_the_file_the_fix_is_made_in(tmp_path):
    folder = _project(tmp_path)
    proc = cli("verify", "train.py", "--device", "cpu", cwd=folder, timeout=240, env=child_env(COLUMNS="200"))
    assert proc.stdout.splitlines()[0] == "train.py:6 main [cpu] verified", proc.stdout + proc.stderr
    assert "fix FIP101 at line 14 (remove_inplace, made in blocks.py);" in proc.stdout


def test_both_files_named_the_callee_has_no_hazard_of_its_own(tmp_path):
    """`verify .` where blocks.py has nothing to fix alone: its only change is the caller's fix, verified through
    train.py; blocks.py gets a note, not a result of its own (its Head would need arguments nobody gives)."""
    folder = _project(tmp_path, TRAIN_FLAG, BLOCKS_FLAG)
    assert "modified by an inplace operation" in _runs(folder, "train.py").stderr
    rc, rows, stderr = _verify(folder, ".")
    assert [(r["path"], r["function"], r["status"]) for r in rows] == [("train.py", "main", "verified")], rows
    assert rows[0]["fixes"][0]["made_in"] == ["blocks.py"]
    assert "blocks.py: its changes are fixes of calls in other files, verified there" in stderr
    assert rc == 0


def test_a_file_without_a_program_is_verified_through_the_program_that_imports_it(tmp_path):
    """`verify .` where blocks.py's own warning gets the fix (the caller's hazard goes with it): blocks.py has no
    main and no top-level work, and `Head()` cannot be built without arguments; train.py's main() imports it, so
    its run (blocks.py patched on one side) verifies the fix."""
    folder = _project(tmp_path)
    rc, rows, stderr = _verify(folder, ".")
    assert [(r["path"], r["function"], r["status"]) for r in rows] == [("blocks.py", "Head.__init__", "verified")]
    assert rows[0]["reason"].startswith("through train.py's main(); "), rows[0]["reason"]
    assert rows[0]["reference"] == "saved_tensor_copies"
    assert "train.py: no fix to verify" in stderr
    assert rc == 0


def test_a_script_calling_into_another_file(tmp_path):
    """The caller is a script (module-level code): it runs as a whole, with blocks.py patched on one side."""
    folder = _project(tmp_path, SCRIPT)
    assert "modified by an inplace operation" in _runs(folder, "train.py").stderr
    rc, rows, _ = _verify(folder, "train.py")
    assert [(r["function"], r["status"]) for r in rows] == [("<module>", "verified")], rows
    assert "run as a script" in rows[0]["reason"]
    assert rc == 0


def test_the_patched_side_really_runs_the_patched_file(tmp_path):
    """Were the patched side to import blocks.py from disk, it would raise as the original does and the result
    would be `failed`; a copy of blocks.py that is already out of place has nothing to fix and no result."""
    folder = _project(tmp_path)
    rc, rows, _ = _verify(folder, "train.py", "--entry", "main")
    assert rows[0]["status"] == "verified" and "the original raises" in rows[0]["reason"], rows
    (folder / "blocks.py").write_text(BLOCKS.replace("nn.Dropout(p=drop, inplace=True)", "nn.Dropout(p=drop)"))
    rc, rows, stderr = _verify(folder, "train.py", "--entry", "main")
    assert rows == [] and "train.py: no fix to verify" in stderr


def test_an_entry_another_file_defines_runs_the_files_that_lack_it(tmp_path):
    """`verify . --entry main`: blocks.py defines no `main`; train.py does and imports it, so blocks.py's fix runs
    through train.py's main() instead of being a usage error. A file that nothing with a `main` imports still is."""
    folder = _project(tmp_path)
    rc, rows, _ = _verify(folder, ".", "--entry", "main")
    assert [(r["path"], r["function"], r["status"]) for r in rows] == [("blocks.py", "Head.__init__", "verified")]
    assert rows[0]["reason"].startswith("through train.py's main(); "), rows[0]["reason"]
    (folder / "train.py").write_text(TRAIN.replace("from blocks import Head", "from torch.nn import Linear as Head"))
    proc = cli("verify", ".", "--entry", "main", "--device", "cpu", cwd=folder, timeout=240)
    assert proc.returncode == 2 and "blocks.py: no top-level 'main' in this file" in proc.stderr, proc.stderr
