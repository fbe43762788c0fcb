"""Autocast regions (mixed precision): an op that autocast casts keeps a cast copy of each float32 input and
parameter, so a later in-place write of the original (an optimizer step, `x += 1`) breaks nothing; an op that
autocast leaves alone, or an input already in the region's dtype, is kept as itself. Which ops cast comes from the
table (measured under `torch.autocast("cpu", dtype=torch.bfloat16)`). Each program is run under torch and labelled
by whether its backward raises; `check` agrees: an error where it raises, nothing where it runs. A region whose
device autocast was not measured on (`"mps"`) or whose `enabled` flag the file does not show is a warning that
names that fact. On CUDA, which ops cast comes from the CUDA overlay (measured on a GPU under
`torch.autocast("cuda")`): there `mv`, `addmv`, `addr`, `einsum` and `LSTMCell` cast too, so a region whose device is
chosen at run time keeps their float32 inputs themselves on the CPU only."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import raises_inplace_error

HEADER = """
    import torch
    import torch.nn as nn
"""

# A GAN's discriminator stepped before the generator's backward through it, its forward in a region.
_GAN = """
    def run():
        torch.manual_seed(0)
        G, D = nn.Linear(4, 4), nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
        with torch.autocast("cpu", dtype=torch.bfloat16{options}):
            fake = G(torch.randn(3, 4))
            d_loss = D(fake.detach()).mean()
            g_loss = -D(fake).mean()
        d_loss.backward()
        opt_d.step()
        g_loss.backward()
"""

# name -> (program, whether it raises "modified by an inplace operation" on the CPU)
PROGRAMS = {
    # Linear keeps bfloat16 copies of its weights in the region, so the step rewrites tensors nothing saved.
    "step_after_cast": (_GAN.format(options=""), False),
    # The same with the region turned off: the weights themselves are saved.
    "step_region_off": (_GAN.format(options=", enabled=False"), True),
    # A float32 input of a cast op, written after it: the op kept a copy.
    "float32_input_written": ("""
        def run():
            lin = nn.Linear(4, 4)
            x = torch.randn(2, 4, requires_grad=True) * 2
            with torch.autocast("cpu"):
                y = lin(x)
                x += 1
            return y
    """, False),
    # The output of a cast op is bfloat16: the next cast op keeps it as itself, and writing it breaks that.
    "bfloat16_activation_written": ("""
        def run():
            first, second = nn.Linear(4, 4), nn.Linear(4, 4)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                h = first(torch.randn(2, 4))
                y = second(h)
                h.mul_(2)
            return y
    """, True),
    # An op autocast does not cast keeps what it keeps, region or not.
    "uncast_op_output_written": ("""
        def run():
            lin = nn.Linear(4, 4)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                h = torch.sigmoid(lin(torch.randn(2, 4)))
                h.mul_(2)
            return h
    """, True),
    # `mv` is not cast by the CPU's autocast: it keeps its float32 input itself.
    "mv_input_written": ("""
        def run():
            w = torch.randn(3, 4, requires_grad=True)
            x = torch.randn(4, requires_grad=True) * 2
            with torch.autocast("cpu"):
                y = torch.mv(w, x)
                x.mul_(2)
            return y
    """, True),
    # The same in a region on a device chosen at run time, run here on the CPU: CUDA's autocast casts `mv`, the
    # CPU's does not, so the hazard exists on the CPU only (an error naming it; `--device cuda` leaves it out).
    "mv_region_device_chosen_at_run_time": ("""
        def forward(w, x, device):
            with torch.autocast(device.type):
                y = torch.mv(w, x)
                x.mul_(2)
            return y


        def run():
            w = torch.randn(3, 4, requires_grad=True)
            return forward(w, torch.randn(4, requires_grad=True) * 2, torch.device("cpu"))
    """, True),
    # A forward decorated with autocast: its region holds what it calls.
    "decorated_forward": ("""
        class Critic(nn.Module):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 1)

            @torch.autocast("cpu", dtype=torch.bfloat16)
            def forward(self, x):
                return self.body(x)


        def run():
            torch.manual_seed(0)
            critic, actor = Critic(), nn.Linear(4, 4)
            opt = torch.optim.SGD(critic.parameters(), lr=0.1)
            value = critic(actor(torch.randn(3, 4))).mean()
            critic_loss = value.pow(2)
            critic_loss.backward(retain_graph=True)
            opt.step()
            (-value).float().backward()
    """, False),
}

# The same GAN step in a region whose effect the file does not show, given its models by a caller.
_UNDECIDED_GAN = """
    def run(G, D, opt_d, z{parameter}):
        with torch.autocast({region}):
            fake = G(z)
            d_loss = D(fake.detach()).mean()
            g_loss = -D(fake).mean()
        d_loss.backward()
        opt_d.step()
        g_loss.backward()


    def main({parameter_only}):
        G, D = nn.Linear(4, 4), nn.Linear(4, 1)
        run(G, D, torch.optim.SGD(D.parameters(), lr=0.1), torch.randn(3, 4){parameter})
"""

# name -> (program, the fact the warning names) for regions whose effect the file does not show
UNDECIDED = {
    "mps_region": (_UNDECIDED_GAN.format(region='"mps", dtype=torch.float16', parameter="", parameter_only=""),
                   "autocast (line 6) on mps keeps"),
    "flag_region": (_UNDECIDED_GAN.format(region='"cpu", enabled=amp', parameter=", amp", parameter_only="amp"),
                    "autocast (line 6) is off"),
    "accelerate_region": ("""
        from accelerate import Accelerator


        def run(G, D, opt_d, z):
            accelerator = Accelerator()
            with accelerator.autocast():
                fake = G(z)
                d_loss = D(fake.detach()).mean()
                g_loss = -D(fake).mean()
            accelerator.backward(d_loss)
            opt_d.step()
            accelerator.backward(g_loss)


        def main():
            G, D = nn.Linear(4, 4), nn.Linear(4, 1)
            run(G, D, torch.optim.SGD(D.parameters(), lr=0.1), torch.randn(3, 4))
    """, "autocast (line 10) is off"),
}


def _program(body: str) -> str:
    """The program, run as a script (so that grad mode is known to be on where it runs)."""
    main = "" if "def main" in body else textwrap.dedent("""


        if __name__ == "__main__":
            out = run()
            if out is not None:
                out.float().sum().backward()
    """).rstrip() + "\n"
    return textwrap.dedent(HEADER).lstrip("\n") + "\n\n" + textwrap.dedent(body).strip("\n") + "\n" + main


def _found(folder: Path, name: str) -> list[tuple[str, str, str]]:
    proc = cli("check", "--no-cache", "--format", "json", f"{name}.py", cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["code"], d["severity"], d["message"]) for d in json.loads(proc.stdout)["diagnostics"]
            if d["severity"] in ("error", "warning")]


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and whether each raises when run forward and backward (one child for all)."""
    folder = tmp_path_factory.mktemp("autocast")
    for name, (body, _) in {**PROGRAMS, **UNDECIDED}.items():
        (folder / f"{name}.py").write_text(_program(body), encoding="utf-8")
    # A program that runs its own backward returns nothing; the others return what is differentiated.
    runs = {name: (f"{name}.py", "out = run()\nif out is not None:\n    out.float().sum().backward()")
            for name in PROGRAMS}
    return folder, raises_inplace_error(folder, runs)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_autocast_region(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] is PROGRAMS[name][1], f"{name}: the label is not what torch does"
    found = _found(folder, name)
    if raises[name]:
        assert found and found[0][1] == "error", found
    else:
        assert found == [], found


@pytest.mark.parametrize("name", sorted(UNDECIDED))
def test_a_region_the_file_does_not_decide_is_a_warning_naming_it(name: str, measured: tuple[Path, dict]) -> None:
    folder, _ = measured
    found = _found(folder, name)
    assert found and all(severity == "warning" for _, severity, _ in found), found
    assert UNDECIDED[name][1] in found[0][2], found[0][2]


# Regions on CUDA, which this machine may not run: the labels are the GPU's measurements (the CUDA overlay,
# `bench/cuda/results/h200_run12`), each op's float32 input written after the op in the region.
_CUDA_REGION = """
    def run(w, x, device):
        with torch.autocast({region}):
            y = {call}
            x.mul_(2)
        return y


    def main():
        x = torch.randn(2, 4, requires_grad=True) * 2
        run(torch.randn(3, 4, requires_grad=True), x, torch.device("cuda")).float().sum().backward()
"""

# name -> (region, call, the devices whose autocast keeps `x` itself: where the write raises)
CUDA_REGIONS = {
    "linear_on_cuda": ('"cuda"', "nn.functional.linear(x, w)", ()),
    "mv_on_cuda": ('"cuda"', "torch.mv(w, x[0])", ()),
    "linear_device_at_run_time": ("device.type", "nn.functional.linear(x, w)", ()),
    "mv_device_at_run_time": ("device.type", "torch.mv(w, x[0])", ("cpu",)),
    "sin_on_cuda": ('"cuda"', "torch.sin(x)", ("cpu", "cuda")),
}


@pytest.mark.parametrize("name", sorted(CUDA_REGIONS))
def test_a_region_on_cuda_follows_what_the_gpu_measured(name: str, tmp_path: Path) -> None:
    region, call, raises_on = CUDA_REGIONS[name]
    (tmp_path / f"{name}.py").write_text(_program(_CUDA_REGION.format(region=region, call=call)), encoding="utf-8")
    for device in ("cpu", "cuda"):
        proc = cli("check", "--no-cache", "--format", "json", "--device", device, f"{name}.py", cwd=tmp_path)
        assert proc.returncode in (0, 1), proc.stderr
        found = [d for d in json.loads(proc.stdout)["diagnostics"] if d["severity"] in ("error", "warning")]
        if device in raises_on:
            assert found and found[0]["severity"] == "error", (device, found)
        else:
            assert found == [], (device, found)
