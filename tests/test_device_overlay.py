"""Hazards that exist on CUDA only: the CUDA overlay of the saved-tensor table (`fixinplace/data/saved_tensors.cuda.json`,
written by `bench/cuda/make_overlay.py` from a table diff measured on a GPU) is read, and `check --device` (config
key `device`) reports them for `cuda` and `any`, naming CUDA, and not for `cpu`. What these tests check is the
overlay's facts (cuDNN's GRU saves its output, the fused GRU cell its biases), not a CUDA run; and that the CPU
table has the float32 kernels' saves (oneDNN's LSTM keeps its output; measured here: the program raises)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

from fixinplace.optable import CUDA_OVERLAY_PATH, OpTable

ROOT = Path(__file__).resolve().parent.parent

PROGRAM = '''import torch
import torch.nn as nn


def sequence_step():
    gru = nn.GRU(8, 16, num_layers=2)
    out, _ = gru(torch.randn(5, 3, 8))
    out.mul_(2)
    out.sum().backward()


def cell_step():
    cell = nn.GRUCell(8, 16)
    h = cell(torch.randn(3, 8), torch.zeros(3, 16))
    with torch.no_grad():
        cell.bias_hh.add_(1)
    h.sum().backward()


def linear_step():
    layer = nn.Linear(8, 16)
    x = torch.randn(3, 8)
    y = layer(x)
    x.mul_(0.5)
    y.sum().backward()


def lstm_step():
    lstm = nn.LSTM(8, 16, num_layers=2)
    out, _ = lstm(torch.randn(5, 3, 8))
    out.mul_(2)
    out.sum().backward()
'''


def hazards(folder: Path, *args: str) -> list[tuple[int, str, str, str]]:
    proc = cli("check", "--no-cache", "--format", "json", "program.py", *args, cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["line"], d["code"], d["severity"], d["message"]) for d in json.loads(proc.stdout)["diagnostics"]]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "program.py").write_text(PROGRAM, encoding="utf-8")
    return tmp_path


def test_the_overlay_is_read_beside_the_table():
    table = OpTable.load()
    assert table.cuda_overlay["device"] == "cuda" and table.cuda_overlay["torch_version"].startswith("2.")
    saved = {s.item: s.device for s in table.module("GRU").saves(True, True, True)}
    assert saved["output"] == "cuda" and saved["input"] is None
    # cuDNN's LSTM always keeps its output; the CPU's float32 kernel does too, its float64 kernel does not
    lstm = [(s.certain, s.device) for s in table.module("LSTM").saves(True, True, True) if s.item == "output"]
    assert lstm == [(False, None), (True, "cuda")]
    cell = {s.item: s.device for s in table.module("GRUCell").saves(True, True, True)}
    assert cell["param:bias_hh"] == "cuda" and cell["param:weight_hh"] is None
    assert all(s.device is None for s in table.module("Linear").saves(True, True, True))


def test_check_reports_cuda_only_hazards_for_cuda_and_any_and_names_the_device(folder: Path):
    for args in ((), ("--device", "any"), ("--device", "cuda")):
        found = hazards(folder, *args)
        assert [(line, code, severity) for line, code, severity, _ in found] == [
            (8, "FIP101", "error"), (16, "FIP101", "error"), (24, "FIP101", "error"), (31, "FIP101", "error")], args
        assert "GRU saves its output for backward on CUDA" in found[0][3]
        assert "GRUCell saves its bias_hh for backward on CUDA" in found[1][3]
        assert "on CUDA" not in found[2][3]  # the Linear's input is saved on every device
        # Certain on CUDA (cuDNN keeps the output in every dtype), an error naming it
        assert "LSTM saves its output for backward on CUDA" in found[3][3]


def test_device_cpu_leaves_out_the_hazards_of_cuda_alone(folder: Path):
    found = hazards(folder, "--device", "cpu")
    # the LSTM's output write stays, as a warning: oneDNN's float32 kernel keeps it, the float64 kernel does not
    assert [(line, code, severity) for line, code, severity, _ in found] == [
        (24, "FIP101", "error"), (31, "FIP101", "warning")]
    assert "on CUDA" not in found[1][3]


def test_the_device_comes_from_the_config_and_a_bad_value_is_a_usage_error(folder: Path):
    (folder / "fixinplace.toml").write_text('device = "cpu"\n', encoding="utf-8")
    assert [line for line, *_ in hazards(folder)] == [24, 31]
    assert [line for line, *_ in hazards(folder, "--device", "cuda")] == [8, 16, 24, 31]  # the flag wins
    (folder / "fixinplace.toml").write_text('device = "tpu"\n', encoding="utf-8")
    proc = cli("check", "program.py", cwd=folder)
    assert proc.returncode == 2 and "device must be one of" in proc.stderr and len(proc.stderr.splitlines()) == 1
    (folder / "fixinplace.toml").unlink()
    bad = cli("check", "program.py", "--device", "gpu", cwd=folder)
    assert bad.returncode == 2 and "--device must be one of" in bad.stderr


def test_the_shipped_overlay_is_what_its_script_writes(tmp_path: Path):
    path = ROOT / "bench" / "cuda" / "make_overlay.py"
    spec = importlib.util.spec_from_file_location("make_overlay", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out = tmp_path / "overlay.json"
    argv = sys.argv
    sys.argv = ["make_overlay.py", "--output", str(out)]
    try:
        module.main()
    finally:
        sys.argv = argv
    assert out.read_text(encoding="utf-8") == CUDA_OVERLAY_PATH.read_text(encoding="utf-8")


def test_the_cpu_labels_are_what_torch_does(folder: Path):
    # On this machine's CPU: the GRU and the GRU cell (CUDA-only hazards) train; the float32 LSTM raises.
    names = ("sequence_step", "cell_step", "linear_step", "lstm_step")
    assert raises_inplace_error(folder, {name: ("program.py", f"{name}()") for name in names}) == {
        "sequence_step": False, "cell_step": False, "linear_step": True, "lstm_step": True}


def test_a_chain_of_in_place_calls_is_named_on_every_device(tmp_path: Path):
    # The LSTM's output written by `out.mul_(2).add_(1)`: one diagnostic naming both ops, whether the hazard is
    # reported as one (any, cuda: an error) or per device (cpu: a warning); the float32 program raises here.
    chained = PROGRAM.replace("out.mul_(2)\n    out.sum()", "out.mul_(2).add_(1)\n    out.sum()")
    (tmp_path / "program.py").write_text(chained, encoding="utf-8")
    assert raises_inplace_error(tmp_path, {"lstm": ("program.py", "lstm_step()")}) == {"lstm": True}
    for device, severity in (("any", "error"), ("cuda", "error"), ("cpu", "warning")):
        found = [h for h in hazards(tmp_path, "--device", device) if h[0] == 31]
        assert [(code, sev) for _, code, sev, _ in found] == [("FIP101", severity)], (device, found)
        assert found[0][3].startswith(
            "in-place writes to `out` (`mul_`, then `add_`): `out` was saved by `LSTM`"), found
