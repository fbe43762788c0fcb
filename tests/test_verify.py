"""`fixinplace verify` and `fix --verify`: real child processes running real torch (skipped without torch).

Each CLI call below imports torch once in its child, so the fixture cases are verified in one call per group.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import child_env, cli

REPO = Path(__file__).resolve().parent.parent
FIX_DIR = REPO / "fixtures" / "fix"
CHECK_DIR = REPO / "fixtures" / "check"

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")

ROW_KEYS = ["path", "function", "line", "codes", "fixes", "device", "status", "reason", "max_abs_diff", "reference"]
REFERENCES = {"original", "saved_tensor_copies", "allow_mutation_on_saved_tensors", "functionalize",
              "finite_differences"}


def _case(name: str) -> dict:
    return json.loads((FIX_DIR / name / "case.json").read_text(encoding="utf-8"))


CASES = sorted(d.name for d in FIX_DIR.iterdir() if (d / "case.json").exists())
SAFE = [n for n in CASES if _case(n)["applicability"] == "safe"]
# Unsafe fixes that keep the program's meaning, and those that change it on purpose (an update moved after the
# backward, a `.data` write made differentiable): the reference (the original's meaning) cannot prove the latter.
CHANGES_MEANING = ("move_after_backward", "data_out_of_place", "recompute_forward", "detach_carried_state")
UNSAFE = [n for n in CASES if _case(n)["applicability"] == "unsafe" and _case(n)["strategy"] not in CHANGES_MEANING]
ON_PURPOSE = [n for n in CASES if _case(n)["strategy"] in CHANGES_MEANING]


def fip(*args: str, cwd: Path = REPO, timeout: float = 120) -> subprocess.CompletedProcess:
    return cli(*args, cwd=cwd, timeout=timeout)


def verify_json(*args: str, cwd: Path = REPO) -> tuple[int, list[dict], str]:
    proc = fip("verify", *args, "--format", "json", cwd=cwd)
    assert proc.returncode != 2, proc.stderr
    data = json.loads(proc.stdout)
    assert list(data) == ["results"]
    for row in data["results"]:
        assert list(row) == ROW_KEYS
        assert row["status"] in ("verified", "changed", "failed", "skipped")
        assert row["device"] in ("cpu", "cuda")
        assert row["reference"] in REFERENCES
        assert set(row["max_abs_diff"]) == {"outputs", "grads"}
        assert all(isinstance(v, float) for v in row["max_abs_diff"].values())
        assert isinstance(row["line"], int) and isinstance(row["codes"], list)
        assert all(set(f) - {"made_in"} == {"line", "code", "strategy", "applicability"} for f in row["fixes"]), row
        assert all(f["applicability"] in ("safe", "unsafe") for f in row["fixes"]), row
    return proc.returncode, data["results"], proc.stderr


def _by_case(rows: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for row in rows:
        out.setdefault(Path(row["path"]).parent.name, []).append(row)
    return out


def test_safe_fix_fixtures_verify_on_cpu():
    paths = [f"fixtures/fix/{n}/before.py" for n in SAFE]
    rc, rows, stderr = verify_json(*paths, "--entry", "main", "--device", "cpu")
    by_case = _by_case(rows)
    assert set(by_case) == set(SAFE)
    for name in SAFE:
        for row in by_case[name]:
            assert row["codes"], (name, row)
            assert row["status"] == "verified", (name, row)
            assert row["max_abs_diff"]["outputs"] <= 1e-5 and row["max_abs_diff"]["grads"] <= 1e-5
            if _case(name)["before_outcome"] == "raises-leaf":
                # `w -= lr * w.grad` in grad mode, fixed under no_grad: the reference runs those leaf updates under
                # no_grad; an `inplace=True` dropped: the reference computes the write out of place, as the fix.
                reading = "under torch.no_grad()" if _case(name)["strategy"] == "wrap_no_grad" else \
                    "computed out of place"
                assert row["reference"] == "original" and reading in row["reason"], (name, row)
    assert rc == 0
    assert "skipped" not in stderr


def test_fixes_that_change_meaning_on_purpose_are_not_proved():
    """A moved update or a `.data` write made differentiable computes something else than the original means:
    verify never calls it `verified` (no proof from a reference it departs from) nor a bare `failed`: `changed`,
    saying what the fix does and by how much the results differ."""
    paths = [f"fixtures/fix/{n}/before.py" for n in ON_PURPOSE]
    rc, rows, _ = verify_json(*paths, "--entry", "main", "--device", "cpu", "--unsafe-fixes")
    by_case = _by_case(rows)
    assert set(by_case) == set(ON_PURPOSE)
    for name in ON_PURPOSE:
        what = {"data_out_of_place": "a `.data` write made differentiable",
                "move_after_backward": "an update moved after the backward"}[_case(name)["strategy"]]
        for r in by_case[name]:
            assert r["status"] == "changed", (name, r)
            assert r["reason"].startswith("the fix changes what the program computes, on purpose (" + what), r
            assert r["reference"] == "saved_tensor_copies", r
    assert rc == 0


def test_unsafe_fix_fixtures_with_unsafe_fixes():
    paths = [f"fixtures/fix/{n}/before.py" for n in UNSAFE]
    rc, rows, _ = verify_json(*paths, "--entry", "main", "--device", "cpu", "--unsafe-fixes")
    by_case = _by_case(rows)
    for name in UNSAFE:
        for row in by_case[name]:
            assert row["status"] == "verified", (name, row)
            if _case(name)["before_outcome"] == "raises-leaf":
                # A leaf main() creates, written in the forward (`x.add_(1)`, `flat[:, 0] = 1.0` on a view of it,
                # the tied autoencoder's `w_dec /= norm` on a view of a parameter) and fixed by computing a new
                # tensor: the reference computes those writes out of place too, on a copy bound to the name the
                # write goes through, and the fix gives exactly its results.
                assert row["reference"] == "original" and "computed out of place" in row["reason"], (name, row)
                assert row["max_abs_diff"] == {"outputs": 0.0, "grads": 0.0}, (name, row)
    assert rc == 0
    # Called on synthesised inputs instead, the same unsafe fixes no longer write the caller's tensor; but a write
    # to a parameter inside the forward's computation, fixed out of place (the tied autoencoder, 34), means a new
    # tensor computed from the parameter: proved against the parameter's differentiable copy.
    rc, rows, _ = verify_json(*paths, "--device", "cpu", "--unsafe-fixes")
    tied = "34_augassign_out_of_place_view_of_parameter_unsafe"
    assert [r["status"] for r in rows] == ["verified" if tied in r["path"] else "failed" for r in rows], rows
    assert all(r["reason"].startswith("the fix changes behaviour: ") for r in rows if tied not in r["path"])
    assert "differentiable copies of its parameters" in next(r["reason"] for r in rows if tied in r["path"])
    assert rc == 1


LEAF_WRITES = ["043_leaf_requires_grad_mul_.py", "044_parameter_setitem.py", "045_module_weight_written_in_forward.py",
               "046_view_of_leaf_zero_.py", "047_manual_sgd_without_no_grad.py"]


def test_leaf_writes_verify_against_no_grad_updates():
    """Initialisations, clips and manual SGD steps of leaves the program creates: the reference runs exactly those
    writes under no_grad, so the `with torch.no_grad():` fixes verify."""
    rc, rows, _ = verify_json(*[f"fixtures/check/{n}" for n in LEAF_WRITES], "--device", "cpu")
    assert sorted(Path(r["path"]).name for r in rows) == LEAF_WRITES
    for row in rows:
        assert row["status"] == "verified" and row["reference"] == "original", row
        assert "under torch.no_grad(), read as updates of state" in row["reason"], row
    assert rc == 0


FORCES = """\
import torch


def displace(coord, agg):
    coord += agg
    return coord


def main():
    torch.manual_seed(0)
    pos = torch.randn(5, 3, requires_grad=True)
    energy = displace(pos, pos.sin()).pow(2).sum()
    forces = -torch.autograd.grad(energy, pos)[0]
    return {"energy": energy.detach(), "forces": forces}
"""

MANUAL_SGD = """\
import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    model = nn.Linear(3, 1)
    x = torch.randn(4, 3)
    for _ in range(2):
        loss = model(x).pow(2).mean()
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p -= 0.1 * p.grad
    return {"w": model.weight.detach().clone()}
"""


def test_leaf_writes_fixed_out_of_place_verify_against_the_out_of_place_reading():
    """Positions differentiated for forces, displaced by `coord += agg` (the leaf error): the fix computes a new
    tensor, so the reference computes the augmented assignment out of place too (bound to the name, as Python binds
    `+=`'s result) and the fix is proved; a rewrite that computes something else fails. A parameter written itself
    (`p -= lr * p.grad`) is an update of state: rebinding the loop's name instead is not proved by that reading."""
    from fixinplace.verify import FilePair, verify_pairs

    out_of_place = [{"line": 5, "code": "FIP102", "strategy": "augassign_out_of_place", "applicability": "unsafe"}]
    fixed = FORCES.replace("    coord += agg\n", "    coord = coord + agg\n")
    doubled = FORCES.replace("    coord += agg\n", "    coord = coord + 2 * agg\n")
    rebinding = [{"line": 15, "code": "FIP102", "strategy": "augassign_out_of_place", "applicability": "unsafe"}]
    rebound = MANUAL_SGD.replace("p -= 0.1 * p.grad", "p = p - 0.1 * p.grad")
    report = verify_pairs([FilePair("fixed.py", FORCES, fixed, {5: ["FIP102"]}, out_of_place),
                           FilePair("doubled.py", FORCES, doubled, {5: ["FIP102"]}, out_of_place),
                           FilePair("sgd.py", MANUAL_SGD, rebound, {15: ["FIP102"]}, rebinding)],
                          entry="main", device="cpu")
    rows = {r["path"]: r for r in report.results}
    assert rows["fixed.py"]["status"] == "verified", rows["fixed.py"]
    assert rows["fixed.py"]["max_abs_diff"] == {"outputs": 0.0, "grads": 0.0}
    assert "computed out of place" in rows["fixed.py"]["reason"]
    assert rows["doubled.py"]["status"] == "failed" and "computed out of place" in rows["doubled.py"]["reason"]
    assert rows["sgd.py"]["status"] == "failed", rows["sgd.py"]
    assert "read as updates of state" in rows["sgd.py"]["reason"]


PSEUDO_LABEL = """\
import torch
import torch.nn.functional as F


def main():
    torch.manual_seed(0)
    lin = torch.nn.Linear(5, 4)
    logits = lin(torch.randn(6, 5))
    probs = logits.softmax(dim=-1)
    target = probs.detach()
    target[target < 0.3] = 0.0
    ce = -(target * F.log_softmax(logits, dim=-1)).sum(dim=-1).mean()
    entropy = -(probs * probs.log()).sum(dim=-1).mean()
    (ce + 0.1 * entropy).backward()
    return {"target": target, "grad": lin.weight.grad}
"""


def test_a_write_through_detach_is_read_as_a_write_to_a_copy():
    """A pseudo-label sharpened in place through `probs.detach()` also writes `probs` (softmax's saved output and
    the entropy term's input). A fix of such a write is compared with the original whose `.detach()` is a copy: the
    fix that writes a copy is proved, one that drops the write fails."""
    from fixinplace.verify import FilePair, verify_pairs

    fixes = [{"line": 12, "code": "FIP101", "strategy": "setitem_out_of_place", "applicability": "safe"}]
    copied = PSEUDO_LABEL.replace("target[target < 0.3] = 0.0", "target = target.masked_fill(target < 0.3, 0.0)")
    dropped = PSEUDO_LABEL.replace("    target[target < 0.3] = 0.0\n", "")
    report = verify_pairs([FilePair("copy.py", PSEUDO_LABEL, copied, {12: ["FIP101"]}, fixes, detach_writes=True),
                           FilePair("drop.py", PSEUDO_LABEL, dropped, {12: ["FIP101"]}, fixes, detach_writes=True)],
                          entry="main", device="cpu")
    rows = {r["path"]: r for r in report.results}
    assert rows["copy.py"]["status"] == "verified", rows["copy.py"]
    assert rows["copy.py"]["max_abs_diff"] == {"outputs": 0.0, "grads": 0.0}
    assert "each `.detach()` a copy" in rows["copy.py"]["reason"]
    assert rows["drop.py"]["status"] == "failed", rows["drop.py"]


def test_wrong_rewrite_is_failed():
    from fixinplace.verify import FilePair, verify_pairs

    before = (FIX_DIR / "01_clone_before_write_int_index" / "before.py").read_text()
    after = (FIX_DIR / "01_clone_before_write_int_index" / "after.py").read_text()
    dropped = after.replace("    e[0] = 0.0\n", "")  # the rewrite lost the write
    assert dropped != after
    wrong_op = after.replace("e = e.clone()", "e = e.clone() * 2")  # an op too many
    sgd_before = (FIX_DIR / "60_wrap_no_grad_manual_sgd" / "before.py").read_text()
    sgd_after = (FIX_DIR / "60_wrap_no_grad_manual_sgd" / "after.py").read_text()
    sgd_wrong = sgd_after.replace("w -= 0.1 * w.grad", "w -= 0.2 * w.grad")  # against the leaf-update reference
    assert sgd_wrong != sgd_after
    report = verify_pairs(
        [FilePair("a.py", before, dropped, {}), FilePair("b.py", before, wrong_op, {}),
         FilePair("c.py", before, after, {}), FilePair("d.py", sgd_before, sgd_wrong, {})],
        device="cpu",
    )
    status = {r["path"]: r for r in report.results}
    assert status["a.py"]["status"] == "failed" and "differ" in status["a.py"]["reason"]
    assert status["a.py"]["max_abs_diff"]["outputs"] > 0.1
    assert status["b.py"]["status"] == "failed" and status["b.py"]["max_abs_diff"]["grads"] > 0.1
    assert status["c.py"]["status"] == "verified"
    assert status["d.py"]["status"] == "failed" and status["d.py"]["reference"] == "original"
    assert "values differ" in status["d.py"]["reason"]
    assert report.exit_code == 1


HAZARD_FN = """\
import torch


def f(x):
    y = torch.exp(x)
    y.add_(1)
    return y
"""


def test_inputs_sources_and_skips(tmp_path):
    (tmp_path / "noinputs.py").write_text(HAZARD_FN.replace("def f(x):", "def f(x, name: str):"))
    (tmp_path / "scalars.py").write_text(HAZARD_FN.replace("def f(x):", "def f(x, n: int, training: bool, eps: float):"))
    (tmp_path / "synth.py").write_text(HAZARD_FN)
    (tmp_path / "index.py").write_text(HAZARD_FN.replace("def f(x):", "def f(x, idx):").replace(
        "    return y\n", "    return y[idx] + y.gather(0, idx)\n"))
    (tmp_path / "declared.py").write_text(HAZARD_FN.replace(
        "def f(x):", "def make():\n    return (torch.randn(3, requires_grad=True),)\n\n\n# fixinplace: inputs=make\ndef f(x):"))
    (tmp_path / "clean.py").write_text("import torch\n\n\ndef g(x):\n    return x + 1\n")
    rc, rows, stderr = verify_json("noinputs.py", "scalars.py", "index.py", "synth.py", "declared.py", "clean.py",
                                   "--device", "cpu", cwd=tmp_path)
    by_path = {r["path"]: r for r in rows}
    assert by_path["noinputs.py"]["status"] == "skipped"
    assert by_path["noinputs.py"]["reason"].startswith("no inputs: pass --entry/--inputs or declare a factory")
    assert "parameter 'name' is not a tensor (str)" in by_path["noinputs.py"]["reason"]
    # An unannotated parameter the body indexes with gets integer indices.
    assert by_path["index.py"]["status"] == "verified", by_path["index.py"]
    assert "(idx: indices 0 and 1)" in by_path["index.py"]["reason"]
    # Python scalars get fixed values: int 1, bool True, float 0.5.
    assert by_path["scalars.py"]["status"] == "verified", by_path["scalars.py"]
    assert "inputs of shapes [(2, 3)] and n=1, training=True, eps=0.5" in by_path["scalars.py"]["reason"]
    # Synthesised: one float64 tensor of the first common shape; the gradient is cross-checked by finite differences.
    assert by_path["synth.py"]["status"] == "verified", by_path["synth.py"]
    assert by_path["synth.py"]["reference"] == "saved_tensor_copies"
    assert "synthesised float64 inputs of shapes [(2, 3)]" in by_path["synth.py"]["reason"]
    assert "cross-checked by central finite differences (12 forward calls" in by_path["synth.py"]["reason"]
    assert by_path["declared.py"]["status"] == "verified", by_path["declared.py"]
    assert by_path["declared.py"]["function"] == "f"
    assert by_path["declared.py"]["reference"] == "saved_tensor_copies"
    assert "synthesised" not in by_path["declared.py"]["reason"]
    assert "clean.py" not in by_path and "clean.py: no fix to verify" in stderr
    assert rc == 0 and "1 result skipped" in stderr
    # The same function with --entry/--inputs on the command line; no fix at all: exit 0, empty results.
    rc, rows, _ = verify_json("declared.py", "--entry", "f", "--inputs", "make", "--device", "cpu", cwd=tmp_path)
    assert [r["status"] for r in rows] == ["verified"] and rc == 0
    rc, rows, stderr = verify_json("clean.py", cwd=tmp_path)
    assert rows == [] and rc == 0 and "no fix to verify" in stderr


SYNTH_MODULE = """\
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(7, 2)

    def forward(self, x):
        h = torch.exp(self.fc(x))
        h[:, 0] = 0.0
        return h


class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.fc = nn.Linear(8, 4)

    def forward(self, x):
        h = torch.sigmoid(self.conv(x))
        h.mul_(2)
        return self.fc(h.mean(dim=(2, 3)))


class Mixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        h = torch.exp(self.fc(x) @ torch.eye(4))
        h.add_(1)
        return h


def shift(t: torch.Tensor):
    s = t * t
    t.add_(1.0)
    return s + t


class NeedsArgs(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        y = torch.exp(x)
        y.add_(self.n)
        return y


def odd_shape(x):
    x = x.view(13, 17)
    y = torch.exp(x)
    y.add_(1)
    return y
"""


FALLBACK_MAIN = """

def main():
    x = torch.randn(2, 3, requires_grad=True)
    out = NeedsArgs(2.0)(x)
    out.sum().backward()
    return out, x.grad
"""


def test_synthesised_inputs_and_side_effects(tmp_path):
    (tmp_path / "m.py").write_text(SYNTH_MODULE)
    (tmp_path / "fallback.py").write_text(SYNTH_MODULE.split("\n\n\ndef odd_shape")[0] + FALLBACK_MAIN)
    rc, rows, stderr = verify_json("m.py", "fallback.py", "--device", "cpu", "--unsafe-fixes", cwd=tmp_path)
    fallback = [r for r in rows if r["path"] == "fallback.py" and r["function"] == "NeedsArgs.forward"]
    assert {r["status"] for r in rows if r["path"] == "fallback.py" and r["function"] != "NeedsArgs.forward"} == {
        "verified", "failed"}
    assert [r["status"] for r in fallback] == ["verified"], fallback
    assert fallback[0]["reason"].startswith("through main() (no synthesised inputs: NeedsArgs() cannot be built")
    by_fn = {r["function"]: r for r in rows if r["path"] == "m.py"}
    assert set(by_fn) == {"Net.forward", "Conv.forward", "Mixer.forward", "shift", "NeedsArgs.forward", "odd_shape"}
    # float32 made inside the forward: float64 inputs fail on the dtype, float32 ones run (no finite differences).
    mixer = by_fn["Mixer.forward"]
    assert mixer["status"] == "verified" and "synthesised float32 inputs of shapes [(4, 4)]" in mixer["reason"]
    assert "not cross-checked by finite differences (not taken: inputs are not all float64)" in mixer["reason"]
    # 228 parameters and 192 input elements: too many for every element; 4 random directions instead.
    conv = by_fn["Conv.forward"]
    assert conv["status"] == "verified" and "shapes [(1, 3, 8, 8)]" in conv["reason"], conv
    assert "cross-checked by central finite differences along 4 random directions (8 forward calls" in conv["reason"]
    # Shapes from the module's first layer (Linear(7, 2)), float64 parameters; index assignment: saved-tensor copies.
    net = by_fn["Net.forward"]
    assert net["status"] == "verified" and net["reference"] == "saved_tensor_copies", net
    assert "shapes [(4, 7)]" in net["reason"] and "cross-checked by central finite differences" in net["reason"]
    # `t.add_(1.0)` after `mul` saved `t` -> `t = t.add(1.0)` (unsafe): the caller no longer sees its tensor change.
    shift = by_fn["shift"]
    assert shift["status"] == "failed", shift
    assert shift["reason"].startswith("the fix changes behaviour: t is left different from what the original leaves")
    assert shift["max_abs_diff"]["outputs"] == 1.0
    needs = by_fn["NeedsArgs.forward"]
    assert needs["status"] == "skipped" and "NeedsArgs() cannot be built without arguments" in needs["reason"]
    odd = by_fn["odd_shape"]
    assert odd["status"] == "skipped" and "does not run on synthesised float64 inputs" in odd["reason"]
    assert "invalid for input of size" in odd["reason"]
    assert rc == 1


def test_signature_classifies_parameters():
    import ast

    from fixinplace.verify.signature import classify, element_kind, synth_spec, top_classes

    def shape(annotation: str | None):
        return classify(ast.parse(annotation, mode="eval").body if annotation else None, {})

    assert shape(None) == (True, None)
    assert shape("torch.Tensor") == (True, None)
    assert shape("Optional[Tensor]") == (True, None)
    assert shape("Tensor | None") == (True, None)
    assert shape("Annotated[torch.Tensor, (3, 5)]") == (True, [3, 5])
    assert shape("Annotated[Tensor, '2 3']") == (True, [2, 3])
    assert shape("Float[Tensor, 'batch 3']") == (True, [2, 3])
    assert shape("'Float[torch.Tensor, \"... c h\"]'") == (True, [2, 3])
    assert shape("int") == (False, None)
    kind = lambda a: element_kind(ast.parse(a, mode="eval").body)  # noqa: E731
    assert [kind(a) for a in ("torch.LongTensor", "Int64[Tensor, 'n']", "'Bool[Tensor, \"n\"]'", "BoolTensor",
                              "Optional[torch.LongTensor]", "Tensor", "Float[Tensor, 'n']")] == [
        "int", "int", "bool", "bool", "int", "float", "float"]
    assert shape("MyConfig") == (False, None)
    source = (
        "class M:\n    def __init__(self):\n        pass\n    def forward(self, x, y=None):\n        pass\n"
        "    @staticmethod\n    def s(x):\n        pass\n    @classmethod\n    def c(cls, x):\n        pass\n"
        "def f(a: Float[Tensor, 'n 4'], b: Float[Tensor, 'n'], *, k):\n    pass\n"
        "def g(a: Float[Tensor, 'n 4'], b: Float[Tensor, 'n']):\n    pass\n"
    )
    tree = ast.parse(source)
    defs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    classes = top_classes(tree)
    init = synth_spec("M.__init__", defs["__init__"], classes)
    assert (init.entry, init.cls, init.params, init.ok) == ("M.forward", "M", [("x", None)], True)
    assert synth_spec("M.s", defs["s"], classes).to_json() == {"entry": "M.s", "cls": "", "params": [["x", None]],
                                                               "kinds": {}}
    assert "classmethod" in synth_spec("M.c", defs["c"], classes).reason
    assert "keyword-only" in synth_spec("f", defs["f"], classes).reason
    assert synth_spec("g", defs["g"], classes).params == [("a", [2, 4]), ("b", [2])]  # one size per name
    assert "nested" in synth_spec("h.<locals>.k", defs["g"], classes).reason


def test_shapes_from_annotations():
    from fixinplace.verify import FilePair, verify_pairs

    before = (
        "from typing import Annotated\n\nimport torch\n\n\n"
        "def scaled(x: Annotated[torch.Tensor, (3, 5)], w: 'Float[torch.Tensor, \"b 5\"]'):\n"
        "    y = torch.exp(x * w.sum())\n    y.mul_(2)\n    return y\n"
    )
    after = before.replace("    y.mul_(2)\n", "    y = y.mul(2)\n")
    wrong = before.replace("    y.mul_(2)\n", "    y = y.mul(3)\n")
    # An integer index and a boolean mask, by annotation: values 0 and 1, and a random mask.
    indexed = (
        "from typing import Annotated\n\nimport torch\n\n\n"
        "def rows(x: Annotated[torch.Tensor, (4, 3)], idx: Annotated[torch.LongTensor, (2,)],\n"
        "         mask: 'Bool[torch.Tensor, \"4 3\"]'):\n"
        "    y = torch.exp(x)\n    y[idx] = 0.0\n    return y * mask\n"
    )
    indexed_after = indexed.replace("    y[idx] = 0.0\n", "    y = y.clone()\n    y[idx] = 0.0\n")
    report = verify_pairs([FilePair("a.py", before, after, {}), FilePair("b.py", before, wrong, {}),
                           FilePair("c.py", indexed, indexed_after, {}),
                           FilePair("d.py", indexed, indexed_after.replace("y[idx] = 0.0", "y[idx] = 0.5"), {})],
                          device="cpu")
    rows = {r["path"]: r for r in report.results}
    assert rows["a.py"]["status"] == "verified", rows["a.py"]
    assert "shapes [(3, 5), (2, 5)]" in rows["a.py"]["reason"]
    assert rows["b.py"]["status"] == "failed" and rows["b.py"]["max_abs_diff"]["outputs"] > 0
    assert rows["c.py"]["status"] == "verified", rows["c.py"]
    assert "shapes [(4, 3), (2,), (4, 3)]" in rows["c.py"]["reason"] and "weak" not in rows["c.py"]["reason"]
    assert rows["d.py"]["status"] == "failed", rows["d.py"]


ORACLE_HEAD = "import torch\nfrom torch import nn\n\n\n"
NO_HOOKS = ORACLE_HEAD + """\
def f(x):
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        y = torch.exp(x)
        WRITE
    return y
"""
BUMP = ORACLE_HEAD + """\
class Bump(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))

    def forward(self, x):
        self.w.add_(1)
        return x * self.w
"""
STRAIGHT_THROUGH = ORACLE_HEAD + """\
def f(x):
    y = torch.exp(x)
    y.add_(1)
    return y + (torch.round(y) - y).detach()
"""

STE_MAIN = """

def main():
    x = torch.randn(4, requires_grad=True)
    f(x).sum().backward()
    return x.grad
"""


def test_functionalize_and_finite_difference_references():
    """Code that refuses saved-tensor hooks cannot run under allow_mutation_on_saved_tensors: functionalize is the
    reference for a method write; an index assignment fails there too, and finite differences are; a parameter
    written in place in forward is read as an update of state (under no_grad)."""
    from fixinplace.verify import FilePair, verify_pairs

    method = NO_HOOKS.replace("WRITE", "y.add_(1)")
    index = NO_HOOKS.replace("WRITE", "y[0] = y[1] * 0.5")
    index_fixed = index.replace("y[0] = y[1] * 0.5", "y = y.clone()\n        y[0] = y[1] * 0.5")
    bump_fixed = BUMP.replace("        self.w.add_(1)\n", "        with torch.no_grad():\n            self.w.add_(1)\n")
    bump_unsafe = BUMP.replace("        self.w.add_(1)\n        return x * self.w\n", "        return x * (self.w + 1)\n")
    pairs = [
        FilePair("method.py", method, method.replace("y.add_(1)", "y = y.add(1)"), {}),
        FilePair("method_wrong.py", method, method.replace("y.add_(1)", "y = y.add(2)"), {}),
        FilePair("index.py", index, index_fixed, {}),
        FilePair("index_wrong.py", index, index_fixed.replace("y[1] * 0.5", "y[1] * 0.25"), {}),
        FilePair("bump.py", BUMP, bump_fixed, {}),
        FilePair("bump_unsafe.py", BUMP, bump_unsafe, {}),
        FilePair("ste.py", STRAIGHT_THROUGH, STRAIGHT_THROUGH.replace("y.add_(1)", "y = y.add(1)"), {}),
        FilePair("ste_main.py", STRAIGHT_THROUGH + STE_MAIN, (STRAIGHT_THROUGH + STE_MAIN).replace(
            "y.add_(1)", "y = y.add(1)"), {}),
    ]
    rows = {r["path"]: r for r in verify_pairs(pairs, device="cpu").results}
    assert rows["method.py"]["status"] == "verified" and rows["method.py"]["reference"] == "functionalize"
    assert "cross-checked by central finite differences" in rows["method.py"]["reason"]
    assert rows["method_wrong.py"]["status"] == "failed" and rows["method_wrong.py"]["reference"] == "functionalize"
    assert rows["index.py"]["status"] == "verified", rows["index.py"]
    assert rows["index.py"]["reference"] == "finite_differences"
    assert "functionalize: RuntimeError: derivative for aten::copy is not implemented" in rows["index.py"]["reason"]
    assert "(12 forward calls;" in rows["index.py"]["reason"]
    assert rows["index_wrong.py"]["status"] == "failed" and rows["index_wrong.py"]["max_abs_diff"]["grads"] > 0.1
    assert rows["bump.py"]["status"] == "verified" and rows["bump.py"]["reference"] == "original"  # leaf updates
    assert "cross-checked by central finite differences" in rows["bump.py"]["reason"]
    assert rows["bump_unsafe.py"]["status"] == "failed"
    assert rows["bump_unsafe.py"]["reason"].startswith("the fix changes behaviour: self.w is left different")
    # A straight-through estimator: autograd's gradient is not the derivative, so the proof is not complete.
    assert rows["ste.py"]["status"] == "skipped"
    assert rows["ste.py"]["reason"].startswith("not proved: the reference's gradients disagree with central finite")
    # With a main(), a function whose synthesised run proves nothing is verified through main() instead.
    assert rows["ste_main.py"]["status"] == "verified", rows["ste_main.py"]
    assert rows["ste_main.py"]["reason"].startswith("through main() (on synthesised inputs: not proved")


PROJECT_MODULE = """\
import torch


def f(x, n: int):
    y = torch.exp(x)
    y.add_(n)
    return y


def g(x, n: int):
    y = torch.exp(x)
    y.add_(n)
    return y


def make_f():
    return (torch.randn(4, requires_grad=True), 2)
"""


def test_pyproject_declarations(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.fixinplace.verify.inputs]\n"f" = "make_f"\n"pkg/m.py::g" = "factories:make_g"\n"other.py::g" = "nope"\n')
    (tmp_path / "factories.py").write_text("import torch\n\n\ndef make_g():\n    return (torch.ones(2, requires_grad=True), 3)\n")
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(PROJECT_MODULE)
    rc, rows, stderr = verify_json("pkg/m.py", "--device", "cpu", cwd=tmp_path)
    by_fn = {r["function"]: r for r in rows}
    assert by_fn["f"]["status"] == "verified" and by_fn["g"]["status"] == "verified", rows
    assert all("synthesised" not in r["reason"] for r in rows)
    assert rc == 0
    # The same importable factory named on the command line (MODULE:NAME).
    rc, rows, _ = verify_json("pkg/m.py", "--entry", "g", "--inputs", "factories:make_g", "--device", "cpu",
                              cwd=tmp_path)
    assert [r["status"] for r in rows] == ["verified", "verified"] and rc == 0
    # A wrong shape in the table is a usage error naming the file and the key.
    (tmp_path / "pyproject.toml").write_text('[tool.fixinplace.verify]\ninputs = ["f"]\n')
    proc = fip("verify", "pkg/m.py", cwd=tmp_path)
    assert proc.returncode == 2 and "pyproject.toml" in proc.stderr and "verify.inputs" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_usage_errors(tmp_path):
    (tmp_path / "m.py").write_text(HAZARD_FN)
    assert fip("verify", "m.py", "--inputs", "make", cwd=tmp_path).returncode == 2
    proc = fip("verify", "m.py", "--entry", "nope", cwd=tmp_path)
    assert proc.returncode == 2 and "nope" in proc.stderr and "Traceback" not in proc.stderr
    assert fip("verify", "missing.py", cwd=tmp_path).returncode == 2
    assert fip("verify", "m.py", "--device", "tpu", cwd=tmp_path).returncode == 2


def test_hang_crash_and_import_error_are_results(tmp_path):
    (tmp_path / "hang.py").write_text(HAZARD_FN + "\n\ndef main():\n    while True:\n        pass\n")
    (tmp_path / "crash.py").write_text(HAZARD_FN + "\n\ndef main():\n    import os\n    os._exit(3)\n")
    (tmp_path / "broken.py").write_text("import no_such_module_fixinplace\n" + HAZARD_FN
                                        + "\n\ndef main():\n    return f(torch.ones(2, requires_grad=True))\n")
    (tmp_path / "after.py").write_text(HAZARD_FN + "\n\ndef main():\n    return f(torch.ones(2, requires_grad=True))\n")
    proc = fip("verify", "hang.py", "crash.py", "broken.py", "after.py", "--entry", "main", "--timeout", "3",
               "--device", "cpu", "--format", "json", cwd=tmp_path)
    assert "Traceback" not in proc.stderr
    rows = {r["path"]: r for r in json.loads(proc.stdout)["results"]}
    assert rows["hang.py"]["status"] == "failed" and "timed out after 3 s" in rows["hang.py"]["reason"]
    assert rows["crash.py"]["status"] == "failed" and "exited with code 3" in rows["crash.py"]["reason"]
    assert rows["broken.py"]["status"] == "skipped" and "ModuleNotFoundError" in rows["broken.py"]["reason"]
    assert rows["after.py"]["status"] == "verified"  # the jobs after a hang and a crash still run
    assert proc.returncode == 1


BUMP_MAIN = """
import torch


def bump(w):
    w.add_(1.0)


def main():
    w = torch.zeros(3, requires_grad=True)
    bump(w)
{ret}
"""


def test_no_proof_from_nothing(tmp_path):
    """A run with nothing to compare (main() returns None, touches nothing the verifier sees) is not a proof:
    `skipped: nothing to compare`, never `verified` with a max diff of 0; returning the tensor makes the same fix
    (the write under `torch.no_grad()`) comparable, and proved."""
    (tmp_path / "none.py").write_text(BUMP_MAIN.format(ret=""))
    (tmp_path / "returns.py").write_text(BUMP_MAIN.format(ret="    return w"))
    # A module-level tensor (or model) the entry changes is compared too, whatever the entry returns.
    (tmp_path / "global.py").write_text(BUMP_MAIN.format(ret="").replace(
        "def main():\n    w = torch.zeros(3, requires_grad=True)\n    bump(w)",
        "W = torch.zeros(3, requires_grad=True)\n\n\ndef main():\n    bump(W)"))
    rc, rows, _ = verify_json("none.py", "returns.py", "global.py", "--entry", "main", "--unsafe-fixes", "--device",
                              "cpu", cwd=tmp_path)
    by_path = {r["path"]: r for r in rows}
    assert by_path["none.py"]["status"] == "skipped", by_path["none.py"]
    assert by_path["none.py"]["reason"].startswith("nothing to compare: main() returned None")
    assert by_path["returns.py"]["status"] == "verified", by_path["returns.py"]
    assert "nothing to compare" not in by_path["returns.py"]["reason"]
    assert by_path["global.py"]["status"] == "verified", by_path["global.py"]
    assert rc == 0


LOOP_WRITE = """
import torch


def run(V, step):
    b = torch.zeros(3, dtype=V.dtype)
    y = torch.zeros(3, dtype=V.dtype)
    for i in range(3):
        b[i] += step[i]
        y = y + V @ b
    return y
"""

DATA_WRITE = """
import torch


def noisy(w, eps):
    y = w * eps.data
    eps.data.mul_(2.0)
    return y
"""


def test_reference_is_the_program_with_private_copies_of_its_saved_tensors():
    """The reference keeps a private copy of every tensor autograd saves (saved-tensor hooks): a loop that writes the
    same tensor on every iteration (where allow_mutation_on_saved_tensors keeps one copy and gives other gradients)
    and a silent `.data` write both verify their correct fixes, cross-checked by finite differences; a fix that
    drops the copy again is caught."""
    from fixinplace.verify import FilePair, verify_pairs

    loop_fixed = LOOP_WRITE.replace("        b[i] += step[i]", "        b = b.clone()\n        b[i] += step[i]")
    data_fixed = DATA_WRITE.replace("y = w * eps.data", "y = w * eps.data.clone()")
    pairs = [
        FilePair("loop.py", LOOP_WRITE, loop_fixed, {8: ["FIP101"]}),
        FilePair("loop_wrong.py", LOOP_WRITE, loop_fixed.replace("y = y + V @ b", "y = y + V @ b * 1.5"),
                 {8: ["FIP101"]}),
        FilePair("data.py", DATA_WRITE, data_fixed, {7: ["FIP104"]}),
    ]
    rows = {r["path"]: r for r in verify_pairs(pairs, device="cpu").results}
    for name in ("loop.py", "data.py"):
        assert rows[name]["status"] == "verified", rows[name]
        assert rows[name]["reference"] == "saved_tensor_copies", rows[name]
        assert "cross-checked by central finite differences" in rows[name]["reason"], rows[name]
    assert "silently differs from its run with private copies" in rows["data.py"]["reason"]
    assert rows["loop_wrong.py"]["status"] == "failed", rows["loop_wrong.py"]


CTX_ATTRIBUTE = """
import torch


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.b = b  # kept as an attribute: invisible to saved-tensor hooks and to version checks
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g * ctx.b, None


def f(x, w):
    b = w * 1.0
    y = Mul.apply(x, b)
    b.add_(1)
    return y
"""


def test_a_wrong_fix_only_finite_differences_catch():
    """A custom Function that keeps a tensor as a ctx attribute escapes saved-tensor hooks, so every run of the
    original (plain, private copies) backpropagates through the written value: the reference is wrong. A wrong fix
    that keeps the write (`copy_`) agrees with it and only the finite-difference cross-check catches it; the right
    fix disagrees with it, and since the oracles disagree it is not called failed either: both are skipped, with
    both figures."""
    from fixinplace.verify import FilePair, verify_pairs

    pairs = [FilePair("wrong.py", CTX_ATTRIBUTE, CTX_ATTRIBUTE.replace("b.add_(1)", "b.copy_(b + 1)"),
                      {19: ["FIP101"]}),
             FilePair("right.py", CTX_ATTRIBUTE, CTX_ATTRIBUTE.replace("b.add_(1)", "b = b.add(1)"),
                      {19: ["FIP101"]})]
    rows = {r["path"]: r for r in verify_pairs(pairs, device="cpu").results}
    wrong, right = rows["wrong.py"], rows["right.py"]
    assert wrong["status"] == "skipped" and wrong["max_abs_diff"]["grads"] == 0.0, wrong
    assert wrong["reason"].startswith("not proved: the reference's gradients disagree with central finite"), wrong
    assert right["status"] == "skipped" and right["max_abs_diff"]["grads"] == 1.0, right
    assert right["reason"].startswith("not proved: the oracles disagree: the fix's gradients differ from the "
                                      "reference's (x.grad: values differ (max abs diff 1"), right
    assert "disagree with central finite differences (x.grad: values differ (max abs diff 1" in right["reason"]


SEED_FACTORIES = {
    "009_seed002_add_inplace_forward_leaf.py": "SimpleModule",
    "011_seed002_add_after_use_forward_leaf.py": "BadModule",
    "013_seed002_clone_then_add_forward_leaf.py": "CorrectModule",
}


def test_seed_fixtures_verify(tmp_path):
    truth = json.loads((CHECK_DIR / "truth.json").read_text())
    seeds = sorted(n for n, e in truth.items() if "seed" in n and e["outcome"] != "ok")
    plain = [n for n in seeds if n not in SEED_FACTORIES]
    assert plain and set(SEED_FACTORIES) <= set(seeds)
    rc, rows, _ = verify_json(*[f"fixtures/check/{n}" for n in plain], "--entry", "main", "--device", "cpu")
    assert {Path(r["path"]).name for r in rows} == set(plain)
    assert all(r["status"] == "verified" for r in rows), rows
    assert rc == 0
    # The leaf-write seeds: the forward, declared with an inputs comment, called on the seed's own input; the
    # reference runs on a clone of the leaf. (These fixes write an argument: unsafe.)
    for name, cls in SEED_FACTORIES.items():
        text = (CHECK_DIR / name).read_text()
        text = text.replace("    def forward(self, x):", "    # fixinplace: inputs=make_inputs\n    def forward(self, x):")
        text += f"\n\ndef make_inputs():\n    return ({cls}(), torch.tensor([1.0, 2.0, 3.0], requires_grad=True))\n"
        (tmp_path / name).write_text(text)
    rc, rows, _ = verify_json(*SEED_FACTORIES, "--device", "cpu", "--unsafe-fixes", cwd=tmp_path)
    assert sorted((r["path"], r["function"]) for r in rows) == sorted(
        (n, f"{c}.forward") for n, c in SEED_FACTORIES.items())
    for row in rows:
        assert row["status"] == "verified" and "clones of its leaf inputs" in row["reason"], row
    assert rc == 0


def test_cuda_without_cuda_is_a_clear_skip():
    rc, rows, stderr = verify_json("fixtures/fix/01_clone_before_write_int_index/before.py", "--entry", "main",
                                   "--device", "cuda")
    import torch

    if torch.cuda.is_available():  # pragma: no cover - a GPU machine
        assert [r["status"] for r in rows] == ["verified"]
    else:
        assert [r["status"] for r in rows] == ["skipped"] and "CUDA is not available" in rows[0]["reason"]
        assert rc == 0 and "skipped" in stderr


@pytest.mark.parametrize("functional", [True, False], ids=["F.dropout", "torch.dropout"])
def test_composite_dropout_draws_the_in_place_mask(functional):
    """verify on CUDA draws an out-of-place dropout's mask as the in-place form does (CUDA's fused kernel draws
    another from the same seed): forced onto this machine's devices, the values and gradients equal the in-place
    form's bit for bit, and the other calls are left to torch."""
    import torch
    import torch.nn.functional as F

    from fixinplace.verify.reference import composite_dropout

    devices = ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)
    for device in devices:
        plain = F.dropout if functional else torch.dropout
        drop = composite_dropout(plain, functional=functional, devices=devices)
        base = torch.randn(64, 64, device=device)
        x = base.clone().requires_grad_()
        torch.manual_seed(3)
        out = drop(x * 2, 0.3, True)
        out.pow(2).sum().backward()
        y = base.clone().requires_grad_()
        torch.manual_seed(3)
        ref = F.dropout(y * 2, 0.3, True, inplace=True)
        ref.pow(2).sum().backward()
        assert torch.equal(out, ref) and torch.equal(x.grad, y.grad), device
        assert 0.6 < (out != 0).float().mean().item() < 0.8
        torch.manual_seed(3)
        assert torch.equal(drop(base, 0.3, False), base)  # evaluation: torch's own call
        assert torch.equal(drop(base, 0.0, True), base)


@pytest.mark.skipif("not __import__('torch').cuda.is_available()", reason="needs CUDA")
def test_dropout_fixes_verify_on_cuda():  # pragma: no cover - a GPU machine
    """In-place dropout made out of place: proved on CUDA too (different masks made them fail before)."""
    rc, rows, _ = verify_json("fixtures/fix/43_remove_inplace_sequential_chain/before.py",
                              "fixtures/fix/44_remove_inplace_functional_dropout/before.py",
                              "fixtures/check/058_dropout_inplace_after_relu.py", "--device", "cuda")
    assert rows and all(r["status"] == "verified" for r in rows), rows


def test_fix_verify_applies_only_verified_files(tmp_path):
    for name in ("01_clone_before_write_int_index", "60_wrap_no_grad_manual_sgd"):
        shutil.copy(FIX_DIR / name / "before.py", tmp_path / f"{name}.py")
    (tmp_path / "noinputs.py").write_text(HAZARD_FN.replace("def f(x):", "def f(x, name: str):"))
    proc = fip("fix", ".", "--verify", "--apply", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr  # the unverified file's hazard remains
    for name in ("01_clone_before_write_int_index", "60_wrap_no_grad_manual_sgd"):
        assert (tmp_path / f"{name}.py").read_text() == (FIX_DIR / name / "after.py").read_text()
    assert (tmp_path / "noinputs.py").read_text() == HAZARD_FN.replace("def f(x):", "def f(x, name: str):")
    assert "noinputs.py: fix not applied: verification skipped" in proc.stderr


TWO_FIXES = HAZARD_FN + """

def shift(t: torch.Tensor):
    s = t * t
    t.add_(1.0)
    return s + t
"""


def test_fix_verify_keeps_each_fix_that_verifies(tmp_path):
    """One file, two fixes: `f`'s verifies, `shift`'s (an unsafe rebinding: the caller no longer sees its tensor
    change) fails. `fix --verify --apply` writes the first and leaves the second hazard, naming each fix."""
    (tmp_path / "two.py").write_text(TWO_FIXES)
    proc = fip("fix", "two.py", "--verify", "--apply", "--unsafe-fixes", cwd=tmp_path, timeout=240)
    text = (tmp_path / "two.py").read_text()
    assert "y.add_(1)" not in text, proc.stderr  # f's fix is written
    assert "    t.add_(1.0)" in text, proc.stderr  # shift's is not
    assert "two.py:6: FIP101 verified" in proc.stderr, proc.stderr
    assert "two.py:12: FIP101 fix not applied" in proc.stderr and "verification failed" in proc.stderr, proc.stderr
    assert proc.returncode == 1  # shift's hazard remains


def test_text_report_is_one_line_per_result_fitted_to_the_terminal(tmp_path):
    """Text output: `path:line function [device] status`, then the reference, the differences and the reason
    beneath, no line wider than the terminal (an 80-column pane), whatever the reason's length."""
    (tmp_path / "two.py").write_text(TWO_FIXES)
    env = child_env(COLUMNS="80")
    proc = subprocess.run([sys.executable, "-m", "fixinplace", "verify", "two.py", "--unsafe-fixes", "--device",
                           "cpu"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    lines = proc.stdout.splitlines()
    assert lines[0] == "two.py:4 f [cpu] verified", lines
    failed = lines.index("two.py:10 shift [cpu] failed")
    words = "compared with the original's own result when every tensor autograd saved is kept intact;"
    first, second = (" ".join(x.strip() for x in block) for block in (lines[1:failed], lines[failed + 1:-1]))
    assert first.startswith("fix FIP101 at line 6 (method_out_of_place); " + words), lines
    assert second.startswith("fix FIP101 at line 12 (method_out_of_place); " + words), lines
    assert lines[-1] == "1 verified, 1 failed, 0 skipped."
    rc, rows, _ = verify_json("two.py", "--unsafe-fixes", "--device", "cpu", cwd=tmp_path)
    assert {r["function"]: r["fixes"] for r in rows} == {
        "f": [{"line": 6, "code": "FIP101", "strategy": "method_out_of_place", "applicability": "safe"}],
        "shift": [{"line": 12, "code": "FIP101", "strategy": "method_out_of_place", "applicability": "unsafe"}]}
    assert max(len(line) for line in lines) <= 80, lines
    assert proc.returncode == 1


def test_parent_process_never_imports_torch(tmp_path):
    shutil.copy(FIX_DIR / "01_clone_before_write_int_index" / "before.py", tmp_path / "m.py")
    code = ("import sys; from fixinplace.cli import run; rc = run(['verify', 'm.py', '--format', 'json']); "
            "print('TORCH', 'torch' in sys.modules, rc)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=child_env(), capture_output=True, text=True,
                          timeout=120)
    assert "TORCH False 0" in proc.stdout, proc.stdout + proc.stderr
    assert (tmp_path / "m.py").read_text() == (FIX_DIR / "01_clone_before_write_int_index" / "before.py").read_text()


def test_a_shared_runner_starts_each_job_afresh(tmp_path, monkeypatch):
    """The CUDA runner serves every job of a child: between jobs it forgets the previous job's own modules (a
    sibling `helpers.py` of another folder must be imported afresh), restores sys.path, the working directory
    and the torch switches user code flips."""
    import os

    import torch

    from fixinplace.verify import steps

    monkeypatch.setattr(steps, "_start", {})
    first, second = tmp_path / "a", tmp_path / "b"
    for folder, value in ((first, 1), (second, 2)):
        folder.mkdir()
        (folder / "helpers_for_shared_runner.py").write_text(f"VALUE = {value}\n")
    before = list(sys.path)
    cwd = os.getcwd()
    try:
        steps.enter_job([str(first), *before], [str(first)])
        import helpers_for_shared_runner as h1

        assert h1.VALUE == 1
        torch.set_default_dtype(torch.float64)
        torch.set_grad_enabled(False)
        os.chdir(tmp_path)
        steps.enter_job([str(second), *before], [str(second)])
        assert "helpers_for_shared_runner" not in sys.modules
        import helpers_for_shared_runner as h2

        assert h2.VALUE == 2 and sys.path[0] == str(second)
        assert torch.get_default_dtype() == torch.float32 and torch.is_grad_enabled() and os.getcwd() == cwd
    finally:
        sys.modules.pop("helpers_for_shared_runner", None)
        sys.path[:] = before
        os.chdir(cwd)
        torch.set_default_dtype(torch.float32)
        torch.set_grad_enabled(True)


SCRIPT_TEXT = """import torch

torch.manual_seed(0)
w = torch.randn(4, requires_grad=True)
x = torch.randn(4)
u = (w * x).exp()
u[0] = 0.0
loss = u.sum()
loss.backward()
print(f"loss {loss.item():.6f}")
"""


def test_a_script_is_verified_by_running_it_whole(tmp_path):
    """Module-level code (a training script) is run as a script, original (with private copies of its saved
    tensors) and patched, and the state it leaves (tensors, their gradients) and what it prints are compared."""
    (tmp_path / "train.py").write_text(SCRIPT_TEXT)
    rc, rows, _ = verify_json("train.py", "--device", "cpu", cwd=tmp_path)
    assert [(r["function"], r["status"], r["reference"]) for r in rows] == [
        ("<module>", "verified", "saved_tensor_copies")]
    assert "run as a script" in rows[0]["reason"] and rc == 0
    # `if __name__ == "__main__":` runs, as it does when the file is run
    (tmp_path / "guarded.py").write_text("import torch\n\nif __name__ == '__main__':\n" + "".join(
        "    " + line + "\n" for line in SCRIPT_TEXT.splitlines()[2:]))
    rc, rows, _ = verify_json("guarded.py", "--device", "cpu", cwd=tmp_path)
    assert [(r["status"], r["max_abs_diff"]["grads"]) for r in rows] == [("verified", 0.0)]


def test_a_wrong_fix_of_a_script_fails_on_what_it_leaves_or_prints(tmp_path):
    from fixinplace.verify import pair_of, verify_pairs

    path = str(tmp_path / "train.py")
    (tmp_path / "train.py").write_text(SCRIPT_TEXT)
    # out of place but with another value: the state differs
    wrong = SCRIPT_TEXT.replace("u[0] = 0.0", "u = u.clone()\nu[0] = 1.0")
    rows = verify_pairs([pair_of(path, SCRIPT_TEXT, wrong, [])], device="cpu").results
    assert [r["status"] for r in rows] == ["failed"] and "global " in rows[0]["reason"]
    # the same state, another printout
    printed = SCRIPT_TEXT.replace("u[0] = 0.0", "u = u.clone()\nu[0] = 0.0").replace('f"loss', 'f"Loss')
    rows = verify_pairs([pair_of(path, SCRIPT_TEXT, printed, [])], device="cpu").results
    assert [r["status"] for r in rows] == ["failed"] and "printed" in rows[0]["reason"]


SHARED_ARRAY = """import numpy as np
import torch


def main():
    a = np.linspace(-1.0, 1.0, 6)
    t = torch.from_numpy(a)
    w = torch.ones(6, dtype=torch.float64, requires_grad=True)
    t += 1.0
    y = (w * t).sum() + float(a.sum())
    y.backward()
    return {"y": y.detach(), "grad": w.grad}
"""


def test_a_fix_that_stops_writing_a_shared_array_changes_the_program_on_purpose(tmp_path):
    """FIP105: the write also changes the NumPy array the program reads again. Every fix of it stops that, so the
    program computes something else than it did (here `y` by 6): `changed`, saying why, never `verified` nor a
    bare `failed`."""
    (tmp_path / "prog.py").write_text(SHARED_ARRAY)
    rc, rows, _ = verify_json("prog.py", "--unsafe-fixes", "--device", "cpu", cwd=tmp_path)
    (row,) = rows
    assert row["codes"] == ["FIP105"] and row["status"] == "changed", row
    assert row["reason"].startswith("the fix changes what the program computes, on purpose (the NumPy array that "
                                    "shares the tensor's memory no longer gets the written values)"), row
    assert row["max_abs_diff"]["outputs"] == 6.0
    assert rc == 0
