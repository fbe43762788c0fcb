"""`fixinplace trace`: real programs run under the tracer by the real command line (subprocesses), the pytest
plugin, the `fixinplace.trace()` context manager, and the tracer's promise not to change results."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import forkserver
import torchrun
from clirun import REPO, cli

torch = pytest.importorskip("torch")

PROGRAMS = Path(__file__).parent / "trace_programs"


def markers(program: Path) -> dict:
    """{"MUTATION": line, "SAVED": line, "BACKWARD": line} from the program's end-of-line markers."""
    found = {}
    for number, line in enumerate(program.read_text().splitlines(), 1):
        if "#" in line:
            for word in line.rsplit("#", 1)[1].split():
                found[word] = number
    return found


def trace_json(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess, dict]:
    """Run `fixinplace trace --format json -o FILE ARGS` and return the process and the parsed report."""
    out = tmp_path / "report.json"
    proc = cli("trace", "--format", "json", "-o", str(out), *args, cwd=tmp_path)
    return proc, json.loads(out.read_text())


# program, kind, the op of the write, the op of the save, whether the program dies of autograd's error
HAZARDS = [
    ("saved_output.py", "invalidated", "__setitem__", "exp", True),
    ("saved_input.py", "invalidated", "add_", "sin", True),
    ("view_alias.py", "invalidated", "fill_", "sigmoid", True),
    ("detach.py", "invalidated", "zero_", "tanh", True),
    ("leaf.py", "invalidated", "mul_", "mul", True),
    ("gan.py", "invalidated", "_foreach_add_", "linear", True),
    ("loop.py", "invalidated", "__setitem__", "matmul", True),
    ("data_write.py", "silent", "mul_", "mul", False),
    ("fused_adam.py", "silent", "_fused_adam_", "linear", False),
]


@pytest.fixture(scope="module")
def traced(tmp_path_factory) -> dict:
    """{program: (returncode, stderr, report)} for every hazard program: `python -m fixinplace trace` run as a
    fork of an interpreter that imported torch once (`torchrun`; the tracer runs the program in that process, as
    it does in a fresh one)."""
    tmp = tmp_path_factory.mktemp("traced")
    out = {}
    for name, *_ in HAZARDS:
        ran = torchrun.run(tmp, "fixinplace", "trace", "--format", "json", "-o", str(tmp / f"{name}.json"),
                           str(PROGRAMS / name), module=True)
        out[name] = (ran.returncode, ran.stderr, json.loads((tmp / f"{name}.json").read_text()))
    return out


@pytest.mark.parametrize("name, kind, write_op, save_op, dies", HAZARDS, ids=[h[0] for h in HAZARDS])
def test_hazard_families_name_both_lines(traced, name, kind, write_op, save_op, dies):
    program = PROGRAMS / name
    lines = markers(program)
    returncode, stderr, report = traced[name]
    assert returncode == 1, stderr
    assert len(report["findings"]) == 1, report
    f = report["findings"][0]
    assert f["kind"] == kind
    assert (f["mutation"]["line"], f["mutation"]["op"]) == (lines["MUTATION"], write_op)
    assert (f["saved_by"]["line"], f["saved_by"]["op"]) == (lines["SAVED"], save_op)
    assert f["backward"]["line"] == lines["BACKWARD"]
    assert f["mutation"]["path"].endswith(f"trace_programs/{name}")
    assert f["mutation"]["source"] and f["mutation"]["source"] in program.read_text()
    assert f["tensor"]["dtype"] == "float32" and f["tensor"]["shape"]
    if kind == "invalidated":
        assert f["tensor"]["version"] > f["tensor"]["saved_version"]
    # the program's own failure (autograd's error) is printed as Python prints it, without the tracer's frames
    assert ("modified by an inplace operation" in stderr) == dies
    assert "fixinplace/trace/" not in stderr


def test_json_fix_field(traced):
    fix = traced["detach.py"][2]["findings"][0]["fix"]
    assert fix["applicability"] in ("safe", "unsafe") and fix["title"]
    assert "+y = y.clone()" in fix["diff"]
    fused = traced["fused_adam.py"][2]["findings"][0]["fix"]  # the forward moved after `opt.step()`
    assert fused["applicability"] == "unsafe" and "-out = D(x).sum()" in fused["diff"], fused
    assert "opt.step()  # MUTATION\n+out = D(x).sum()" in fused["diff"], fused


def test_text_report_comes_before_the_traceback_and_shows_the_fix(tmp_path):
    program = PROGRAMS / "saved_output.py"
    lines = markers(program)
    proc = cli("trace", str(program), cwd=tmp_path)
    assert proc.returncode == 1
    err = proc.stderr
    assert f"saved_output.py:{lines['MUTATION']}: `__setitem__` wrote a tensor saved for backward" in err
    assert "saved by `exp` at " in err and f"saved_output.py:{lines['SAVED']}" in err
    assert f"    {lines['MUTATION']} | u[0] = 666" in err
    assert "+u = u.clone()" in err  # the static fix for that line, as a diff
    assert err.index("fixinplace trace: 1 hazard found") < err.index("Traceback (most recent call last):")
    assert err.rstrip().splitlines()[-1].startswith("RuntimeError: one of the variables needed for gradient")


def test_clean_program_reports_nothing_and_keeps_its_arguments_and_exit_status(tmp_path):
    program = PROGRAMS / "clean_training.py"
    proc, report = trace_json(tmp_path, str(program), "--exit", "3", "--format", "x")
    assert (proc.returncode, report) == (3, {"findings": []}), proc.stderr
    assert "args ['--exit', '3', '--format', 'x']" in proc.stdout


def test_script_sees_what_python_gives_it(tmp_path):
    """`sys.argv[0]` as typed, `__file__` absolute, `__name__` "__main__", no `__spec__`: as `python ex.py`."""
    (tmp_path / "ex.py").write_text("import sys\nprint(repr((sys.argv, __file__, __name__, __spec__, "
                                    "type(__loader__).__name__, sys.modules['__main__'].__file__)))\n")
    python = subprocess.run([sys.executable, "ex.py", "a"], cwd=tmp_path, capture_output=True, text=True)
    proc = cli("trace", "ex.py", "a", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == python.stdout
    assert proc.stdout.startswith("(['ex.py', 'a'], " + repr(str(tmp_path / "ex.py")))


def test_latent_write_is_reported_but_does_not_change_the_exit_status(tmp_path):
    # The graph that saved `y` is alive at the end but no backward used it: the run was not affected.
    program = PROGRAMS / "latent.py"
    lines = markers(program)
    proc, report = trace_json(tmp_path, str(program))
    assert proc.returncode == 0, proc.stderr
    (finding,) = report["findings"]
    assert finding["backward"] is None
    assert "fix" not in finding  # `check` reports nothing there, so there is no fix to show
    assert (finding["mutation"]["line"], finding["saved_by"]["line"]) == (lines["MUTATION"], lines["SAVED"])
    text = cli("trace", str(program), cwd=tmp_path)
    assert text.returncode == 0
    assert "0 hazards found, 1 latent" in text.stderr and "latent: no backward used this graph" in text.stderr


def test_module_mode_runs_as_main(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "train.py").write_text(
        "import sys\nimport torch\nassert __name__ == '__main__' and sys.argv[1:] == ['-v'], sys.argv\n"
        "x = torch.ones(2, requires_grad=True)\ny = x.sigmoid()\ny.mul_(2)\ny.sum().backward()\n"
    )
    proc, report = trace_json(tmp_path, "-m", "pkg.train", "-v")
    assert proc.returncode == 1, proc.stderr
    (f,) = report["findings"]
    assert (f["mutation"]["path"], f["mutation"]["line"], f["saved_by"]["line"]) == ("pkg/train.py", 6, 5)
    # the console script too: its sys.path[0] is its own folder, which `-m` must replace by the working folder
    script = Path(sys.executable).with_name("fixinplace")
    if script.exists():
        proc = subprocess.run([str(script), "trace", "-m", "pkg.train", "-v"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300, env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert proc.returncode == 1 and "pkg/train.py:6: `mul_` wrote a tensor saved" in proc.stderr, proc.stderr


def test_missing_targets_are_one_line_errors(tmp_path):
    for args in (["nope.py"], ["-m", "no_such_module_xyz"]):
        proc = cli("trace", *args, cwd=tmp_path)
        assert proc.returncode == 2
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("fixinplace: error: "), proc.stderr


def test_unwritable_report_file_goes_to_stderr(tmp_path):
    (tmp_path / "ok.py").write_text("print('ran')\n")
    proc = cli("trace", "-o", str(tmp_path / "missing" / "r.txt"), "ok.py", cwd=tmp_path)
    assert (proc.returncode, proc.stdout) == (2, "ran\n")
    assert proc.stderr.startswith("fixinplace: error: ") and "r.txt: cannot write the report" in proc.stderr
    assert "fixinplace trace: no hazard found." in proc.stderr


def test_context_manager_and_import_without_torch(tmp_path):
    script = tmp_path / "inline.py"
    script.write_text(
        "import sys\nimport fixinplace\nassert 'torch' not in sys.modules\nimport torch\n"
        "x = torch.ones(3, requires_grad=True)\nwith fixinplace.trace() as t:\n"
        "    y = x.exp()\n    y.add_(1)\n"
        "assert len(t.findings) == 1 and t.findings[0].backward is None\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "inline.py:8: `add_` wrote a tensor saved for backward" in proc.stderr
    assert "latent: no backward used this graph during the run" in proc.stderr


def test_pytest_plugin(tmp_path):
    (tmp_path / "test_model.py").write_text(
        "import torch\n\n\ndef test_bad():\n    x = torch.randn(3, requires_grad=True)\n    y = x.tanh()\n"
        "    y.detach().zero_()\n    try:\n        y.sum().backward()\n    except RuntimeError:\n        pass\n\n\n"
        "def test_good():\n    x = torch.randn(3, requires_grad=True)\n    (x * 2).sum().backward()\n\n\n"
        "import pytest\n\n\n@pytest.fixture\ndef graph():\n    w = torch.randn(3, requires_grad=True)\n"
        "    return w, (w * w).sum()\n\n\n"
        "def test_fixture_graph(graph):\n    w, loss = graph\n    w.data.add_(1)\n    loss.backward()\n"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    # pytest as a fork of the tests' server that imported torch (`forkserver.py`), with its own arguments and plugins.
    base = [sys.executable, forkserver.CLIENT, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
            "fixinplace.pytest_plugin", "test_model.py"]
    proc = subprocess.run(base + ["--fixinplace-trace"], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 1, proc.stdout
    assert "3 passed" in proc.stdout
    summary = proc.stdout.split("= fixinplace trace =")[-1]
    assert "test_model.py::test_bad" in summary and "test_good" not in summary
    assert "test_model.py:7: `zero_` wrote a tensor saved for backward" in summary
    # a graph built by a fixture (setup is traced too), written through .data in the test
    assert "test_model.py::test_fixture_graph" in summary
    assert "test_model.py:30: `add_` changed a tensor saved for backward without bumping its version" in summary
    assert "saved by `mul` at test_model.py:25" in summary
    proc = subprocess.run(base, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, proc.stdout


def _train(steps: int, traced: bool):
    """A small MLP trained for `steps` steps (Adam, in-place ReLU, dropout), with or without the tracer."""
    import fixinplace

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(inplace=True), torch.nn.Dropout(0.2),
                                torch.nn.Linear(32, 32), torch.nn.Tanh(), torch.nn.Linear(32, 4))
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    x, y = torch.randn(64, 16), torch.randint(0, 4, (64,))

    def run():
        for _ in range(steps):
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()

    if traced:
        with fixinplace.trace(report=False) as t:
            run()
        assert t.findings == []
    else:
        run()
    return [p.detach().clone() for p in model.parameters()]


def test_tracer_leaves_training_bit_identical():
    plain, traced = _train(30, False), _train(30, True)
    assert all(torch.equal(a, b) for a, b in zip(plain, traced))


def test_saved_tensors_are_released_without_the_garbage_collector():
    from fixinplace.trace.tracer import Tracer

    gc.disable()
    try:
        with Tracer() as tracer:
            x = torch.randn(8, 8, requires_grad=True)
            for _ in range(3):
                loss = x.exp().sigmoid().sum()
                assert len(list(tracer.registry.records())) == 2
                loss.backward()
                assert list(tracer.registry.records()) == []
            loss = x.tanh().sum()
            del loss  # a graph dropped without backward frees its saves too
            assert list(tracer.registry.records()) == []
    finally:
        gc.enable()
    assert tracer.findings == []


def test_silent_writes_count_only_where_they_reach_the_saved_bytes():
    import fixinplace

    w = torch.randn(6, requires_grad=True)
    found = {}
    for name, part in (("disjoint", slice(3, None)), ("overlapping", slice(2, None))):
        with fixinplace.trace(report=False) as t:
            a = w[:3] * w[:3]
            w.data[part].mul_(2)
            a.sum().backward()
        found[name] = [f.kind for f in t.findings]
    assert found == {"disjoint": [], "overlapping": ["silent"]}


def test_a_write_the_mode_cannot_see_is_still_caught_by_the_backward():
    import fixinplace
    from fixinplace.trace.report import render_text

    x = torch.randn(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        with fixinplace.trace(report=False) as t:
            y = x.exp()
            z = y * 2
            z.register_hook(lambda g: y.add_(1))  # runs inside backward, where the function mode is off
            z.sum().backward()
    (f,) = t.findings
    assert (f.kind, f.mutation, f.saved_by.op, f.saved_by.line, f.now_version) == ("invalidated", None, "exp",
                                                                                    f.backward.line - 3, 1)
    assert "a tensor saved here was written in place where the tracer does not look" in render_text(t.findings)
    assert json.loads(json.dumps(f.to_json()))["mutation"] is None


def test_user_frame_on_a_stack_shallower_than_asked():
    """The autograd engine's threads (the backward of CUDA tensors) call the tracer's hooks from a stack with fewer
    frames than the tracer skips: no user frame, not a crash (seen on an H100, bench/cuda/README.md)."""
    import threading

    from fixinplace.trace.sites import user_frame

    found = []
    thread = threading.Thread(target=lambda: found.append(user_frame(depth=50)))
    thread.start()
    thread.join()
    assert found == [None]


def test_a_thread_that_dies_of_the_inplace_error_is_reported(tmp_path):
    """A background thread dies of autograd's in-place error while the main thread exits 0: the report says so
    (it used to say "no hazard found"), and the exit status is 1."""
    proc = cli("trace", str(PROGRAMS / "thread.py"), cwd=tmp_path)
    assert "no hazard found" not in proc.stderr, proc.stderr
    assert "thread 'worker' died" in proc.stderr and "in-place error" in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr
    proc, report = trace_json(tmp_path, str(PROGRAMS / "thread.py"))
    assert [e["thread"] for e in report["thread_errors"]] == ["worker"], report
    assert report["thread_errors"][0]["inplace_autograd_error"] is True and proc.returncode == 1


def _notebook(path: Path, *cells: str) -> None:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# a notebook"),
                *(nbformat.v4.new_code_cell(source) for source in cells)]
    nbformat.write(nb, str(path))


def test_a_notebook_runs_cell_by_cell_and_is_reported_by_cell(tmp_path):
    _notebook(tmp_path / "nb.ipynb", "import torch",
              "%matplotlib inline\nx = torch.randn(3, requires_grad=True)",  # IPython syntax: masked, as check does
              "y = x.exp()\ny.add_(1)\nprint('before the backward')\ny.sum().backward()")
    proc = cli("trace", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout == "before the backward\n", proc.stderr
    assert "nb.ipynb:cell 4:2: `add_` wrote a tensor saved for backward" in proc.stderr
    assert "    2 | y.add_(1)" in proc.stderr and "saved by `exp` at nb.ipynb:cell 4:1" in proc.stderr
    assert "needed by the backward at nb.ipynb:cell 4:4" in proc.stderr
    # The program's own traceback names the cell too.
    assert 'nb.ipynb, cell 4", line 4, in <module>' in proc.stderr
    assert "modified by an inplace operation" in proc.stderr
    _, report = trace_json(tmp_path, "nb.ipynb")
    (finding,) = report["findings"]
    assert finding["mutation"]["cell"] == 4 and finding["mutation"]["line"] == 2
    assert finding["backward"]["cell"] == 4 and finding["backward"]["line"] == 4


def test_a_notebook_cell_that_does_not_parse_alone_and_a_file_that_is_no_notebook(tmp_path):
    _notebook(tmp_path / "split.ipynb", "import torch\ndef f(x):", "    return x")
    proc = cli("trace", "split.ipynb", cwd=tmp_path)
    assert proc.returncode == 1 and "SyntaxError" in proc.stderr and "cell 2" in proc.stderr, proc.stderr
    (tmp_path / "bad.ipynb").write_text('{"cells": [', encoding="utf-8")
    bad = cli("trace", "bad.ipynb", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    assert bad.stderr.startswith("fixinplace: error: bad.ipynb: invalid notebook"), bad.stderr
