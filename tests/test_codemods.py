"""Each codemod's own examples, through LibCST's `CodemodTest`, the stand-alone command line, and torch.

* Stand-alone (no facts given), a codemod analyses the module with fixinplace and applies its rewrite wherever
  fixinplace would (each rewrite checked): every `(before, after)` example of a codemod turns `before` into exactly
  `after`, and applying it again changes nothing (LibCST's `SkipFile`).
* Programs that must not be rewritten (every rule's clean examples, and the safe programs of fixtures/check) make
  every codemod skip.
* `python -m libcst.tool codemod -x fixinplace.fix.standalone.<Class>` rewrites a real file.
* Under torch: `after` runs without an autograd error and gives the gradients the original meant (its run with every
  saved tensor copied at save time), except for rewrites that change the meaning on purpose.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from libcst.codemod import CodemodTest

from codemods import CODEMODS
from fixinplace.fix.standalone import STANDALONE
from fixinplace.rules import RULES

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [(name, index, before, after) for name, codemod in sorted(CODEMODS.items())
            for index, (before, after) in enumerate(codemod.EXAMPLES)]
EXAMPLE_IDS = [f"{name}-{index}" for name, index, _, _ in EXAMPLES]
NOT_REWRITTEN = [(name, index, program) for name, codemod in sorted(CODEMODS.items())
                 for index, (program, _why) in enumerate(codemod.NOT_REWRITTEN)]
NOT_REWRITTEN_IDS = [f"{name}-not-{index}" for name, index, _ in NOT_REWRITTEN]
TRUTH = json.loads((REPO / "fixtures" / "check" / "truth.json").read_text(encoding="utf-8"))
SAFE_PROGRAMS = [example for rule in RULES for example in rule.clean] + [
    (REPO / "fixtures" / "check" / name).read_text(encoding="utf-8")
    for name, entry in sorted(TRUTH.items()) if entry["outcome"] == "ok"][:12]


#: Codemods whose examples are unsafe fixes (they change when an update runs, or the gradients, on purpose).
UNSAFE_ONLY = {"move_after_backward": True, "data_out_of_place": True, "recompute_forward": True,
               "detach_carried_state": True}


def codemod_test(name: str) -> CodemodTest:
    """A `CodemodTest` case whose TRANSFORM is one of our codemods, as its stand-alone command runs it on a file
    (`fixinplace.fix.standalone`: the hazards found with fixinplace, each rewrite checked)."""
    case_class = type(f"Test{CODEMODS[name].__name__}", (CodemodTest,), {"TRANSFORM": STANDALONE[name]})
    return case_class()


def test_every_codemod_has_examples_and_a_standalone_command() -> None:
    assert CODEMODS, "no codemod registered"
    for name, codemod in CODEMODS.items():
        assert codemod.NAME == name and codemod.EXAMPLES, name
        assert codemod.__module__ == f"codemods.{name}", f"{name} is not defined in codemods/{name}.py"
        assert issubclass(STANDALONE[name], codemod) and STANDALONE[name].__name__ == codemod.__name__, name
    assert set(STANDALONE) == set(CODEMODS)


@pytest.mark.parametrize("name,index,before,after", EXAMPLES, ids=EXAMPLE_IDS)
def test_codemod_rewrites_its_example(name: str, index: int, before: str, after: str) -> None:
    case = codemod_test(name)
    if UNSAFE_ONLY.get(name):  # the rewrite is an unsafe fix: the command applies it only when asked to
        case.assertCodemod(before, before, expected_skip=True)
    case.assertCodemod(before, after, unsafe_fixes=True)
    case.assertCodemod(after, after, expected_skip=True, unsafe_fixes=True)  # nothing left for it to fix


@pytest.mark.parametrize("name,index,program", NOT_REWRITTEN, ids=NOT_REWRITTEN_IDS)
def test_codemod_leaves_its_not_rewritten_example_alone(name: str, index: int, program: str) -> None:
    """A hazard the codemod must not rewrite (another rewrite fixes it, or none may), even with unsafe fixes."""
    codemod_test(name).assertCodemod(program, program, expected_skip=True, unsafe_fixes=True)


@pytest.mark.parametrize("name,index,program", NOT_REWRITTEN, ids=NOT_REWRITTEN_IDS)
def test_not_rewritten_example_is_a_real_hazard(name: str, index: int, program: str) -> None:
    """Each program the codemod leaves alone is reported, and its hazard is real: it raises under torch."""
    from fixinplace.engine import check_source
    from fixinplace.settings import Settings

    assert [d for d in check_source(program, "example.py", Settings()) if d.severity.value == "error"]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        exec(compile(program, "example", "exec"), {"torch": torch})


#: A write to a tensor held by a container (dict, list, tuple): the container is no tensor, so no fix may clone or
#: rebind it (`d = d.clone()` raised AttributeError); the clone where the op saves the tensor fixes each one.
CONTAINER_WRITES = {
    "dict": ('d = {"a": x.exp()}', 'd["a"].add_(1)', 'd["a"]', 'd = {"a": x.exp().clone()}'),
    "dict_call": ("d = dict(a=x.exp())", 'd["a"].add_(1)', 'd["a"]', "d = dict(a=x.exp().clone())"),
    "list_append": ("ys = []\n    ys.append(x.exp())", "ys[-1].add_(1)", "ys[-1]", "ys.append(x.exp().clone())"),
    "tuple": ("t = (x.exp(), 1)", "t[0].add_(1)", "t[0]", "t = (x.exp().clone(), 1)"),
    "dict_setitem": ('d = {"a": x.exp()}', 'd["a"][0] = 0.0', 'd["a"]', 'd = {"a": x.exp().clone()}'),
    "list_view": ("ys = [x.exp()]", "ys[0].t()[0] = 1.0", "ys[0]", "ys = [x.exp().clone()]"),
}


def _container_program(made: str, write: str, read: str) -> str:
    return ("import torch\n\n\ndef main():\n    torch.manual_seed(0)\n    x = torch.randn(3, 3, requires_grad=True)\n"
            f"    {made}\n    {write}\n    {read}.sum().backward()\n    return x.grad\n")


@pytest.mark.parametrize("shape", sorted(CONTAINER_WRITES))
def test_a_write_through_a_container_clones_the_tensor_not_the_container(shape: str, tmp_path: Path) -> None:
    """`check --show-fixes` and `fix --apply` (the real CLI) on a write to a container's element: the hazard is
    still reported, the fix is the clone where the op saves, and the fixed program runs and computes the gradient
    the original meant (its run with every saved tensor copied at save time)."""
    from clirun import cli

    made, write, read, fixed_line = CONTAINER_WRITES[shape]
    program = _container_program(made, write, read)
    target = tmp_path / "prog.py"
    target.write_text(program, encoding="utf-8")
    checked = cli("check", "--show-fixes", "--unsafe-fixes", "prog.py", cwd=tmp_path)
    assert checked.returncode == 1, checked.stderr
    assert "FIP101 [error] [*]" in checked.stdout, checked.stdout
    container = made.split()[0]
    assert f"{container} = {container}.clone()" not in checked.stdout, checked.stdout
    assert f"`{fixed_line.strip()}` (safe fix)" in checked.stdout, checked.stdout
    fixed = cli("fix", "--apply", "--unsafe-fixes", "prog.py", cwd=tmp_path)
    assert fixed.returncode == 0, fixed.stderr
    after = target.read_text(encoding="utf-8")
    assert after == program.replace(made.splitlines()[-1].strip(), fixed_line), after
    torch = pytest.importorskip("torch")
    original: dict = {}
    exec(compile(program, "before", "exec"), original)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        original["main"]()
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):
        reference = original["main"]()
    patched: dict = {}
    exec(compile(after, "after", "exec"), patched)
    assert torch.equal(patched["main"](), reference)


@pytest.mark.parametrize("program", SAFE_PROGRAMS, ids=[f"safe-{i}" for i in range(len(SAFE_PROGRAMS))])
def test_codemods_leave_safe_programs_alone(program: str) -> None:
    for name in CODEMODS:
        codemod_test(name).assertCodemod(program, program, expected_skip=True, unsafe_fixes=True)


def test_libcst_tool_runs_a_codemod_on_a_file(tmp_path: Path) -> None:
    name, _, before, after = next(e for e in EXAMPLES if e[0] == "clone_at_save")
    target = tmp_path / "prog.py"
    target.write_text(before, encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run(
        [sys.executable, "-m", "libcst.tool", "codemod", "-x", "--no-format", "fixinplace.fix.standalone.CloneAtSave",
         str(target)], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert target.read_text(encoding="utf-8") == after
    assert "1 files successfully codemodded" in proc.stderr or "successfully" in proc.stderr, proc.stderr


@pytest.mark.parametrize("name,index,before,after", EXAMPLES, ids=EXAMPLE_IDS)
def test_codemod_example_runs_and_means_the_same(name: str, index: int, before: str, after: str) -> None:
    torch = pytest.importorskip("torch")
    fixed_scope: dict = {}
    torch.manual_seed(0)
    exec(compile(after, "after", "exec"), fixed_scope)
    if name in ("wrap_no_grad", *UNSAFE_ONLY):
        return  # a leaf update, a moved update, a differentiable `.data` op: running without error is the claim
    reference_scope: dict = {}
    torch.manual_seed(0)
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t):  # saves copied when made
        exec(compile(before, "before", "exec"), reference_scope)
    for key, value in reference_scope.items():
        if isinstance(value, torch.Tensor) and value.is_leaf and value.grad is not None:
            assert torch.equal(fixed_scope[key].grad, value.grad), key
