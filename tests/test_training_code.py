"""Structures of real training code (issue 26): a subclass of `nn.Sequential`, `inplace` passed through `**params`,
conversions that return their input (`.float()` of a float32 tensor), an element of a Python list written with
`+=`, AMP's `GradScaler`, Accelerate's `Accelerator`, Lightning's `LightningModule` and `torch.compile`.

Each program's `main()` is run under torch: the hazardous ones raise "modified by an inplace operation", the safe
ones run, and `check` agrees (an error, or nothing). Accelerate and Lightning are not installed here: the folder
gets two small stand-in modules with the calls the programs use and what those calls do in the real packages
(`accelerator.backward(loss)` is `loss.backward()`, `prepare` hands back its arguments, `self.optimizers()` the
optimizers of `configure_optimizers()`), so that those programs are labelled by running too; the analysis never
imports them."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli
from labels import LEAF_ERROR, raises_inplace_error

HEADER = """
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
"""

STAND_INS = {
    "accelerate.py": """
        class Accelerator:
            def prepare(self, *objects):
                return objects[0] if len(objects) == 1 else objects

            def backward(self, loss, **kwargs):
                loss.backward(**kwargs)
    """,
    "lightning.py": """
        import torch


        class LightningModule(torch.nn.Module):
            def optimizers(self):
                optimizers = self.configure_optimizers()
                return optimizers[0] if len(optimizers) == 1 else optimizers

            def manual_backward(self, loss, **kwargs):
                loss.backward(**kwargs)


        class Fabric:
            def setup(self, *objects):
                return objects[0] if len(objects) == 1 else objects

            def setup_optimizers(self, *optimizers):
                return optimizers[0] if len(optimizers) == 1 else optimizers

            def backward(self, loss, **kwargs):
                loss.backward(**kwargs)
    """,
}

# The two models and optimizers of a GAN, as the body of `main()` in the programs below writes them.
_GAN = textwrap.indent(textwrap.dedent("""
    G = nn.Linear(4, 4)
    D = nn.Linear(4, 1)
    opt_g = torch.optim.SGD(G.parameters(), lr=0.1)
    opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
""").strip(), " " * 12).lstrip()

# torchvision's `ops.MLP` shape: the layers built in `__init__`, `inplace` passed through `**params`.
_MLP = """
        class MLP(nn.Sequential):
            def __init__(self, sizes, activation_layer=nn.ReLU, inplace=None, dropout=0.0):
                params = {} if inplace is None else {"inplace": inplace}
                layers = []
                for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):
                    layers.append(nn.Linear(d_in, d_out))
                    layers.append(activation_layer(**params))
                    layers.append(nn.Dropout(dropout, **params))
                layers.append(nn.Linear(sizes[-2], sizes[-1]))
                super().__init__(*layers)

"""

# A custom Function whose forward doubles its input in place, applied to what `exp` saved; the first `%s` may make
# the input a copy first, the second is the loss.
_SCALE = """
        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                %s
                x.mul_(2)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2


        def main():
            h = torch.randn(4, requires_grad=True).exp()
            (%s).backward()
"""

# A float32 tensor saved by `pow`, converted (`%s`) and the result written in place.
_CONVERSION = """
        def main():
            w = torch.randn(4, 4, requires_grad=True)
            logits = torch.randn(2, 4) @ w
            squared = logits.pow(2)
            out = logits.%s
            out.mul_(2)
            (squared.sum() + out.sum()).backward()
"""

# A function run under `torch.utils.checkpoint` that writes what `sigmoid` saved; `%s`: use_reentrant.
_CHECKPOINT = """
        from torch.utils.checkpoint import checkpoint


        def inner(x, w):
            h = torch.sigmoid(x @ w)
            h.mul_(2)
            return h


        def main():
            x = torch.randn(2, 4)
            checkpoint(inner, x, torch.randn(4, 4, requires_grad=True), use_reentrant=%s).sum().backward()
"""

# An FPN head adding each upsampled level to the one below it, in place, in a Python list of tensors; `%s` is how
# each lateral is made.
_FPN = """
        class FPN(nn.Module):
            def __init__(self):
                super().__init__()
                self.lateral = nn.ModuleList([nn.Conv2d(4, 4, 1) for _ in range(3)])

            def forward(self, feats):
                laterals = [%s for conv, f in zip(self.lateral, feats)]
                for i in range(len(laterals) - 1, 0, -1):
                    laterals[i - 1] += F.interpolate(laterals[i], scale_factor=2.0)
                return sum(lateral.sum() for lateral in laterals)


        def main():
            FPN()([torch.randn(1, 4, 8, 8), torch.randn(1, 4, 4, 4), torch.randn(1, 4, 2, 2)]).backward()
"""

# A model that turns its modules in place after building them (MVANet's loop over `self.modules()`, 22 modules).
_MODULES_LOOP = """
    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.linear1 = nn.Linear(4, 8)
            self.linear2 = nn.Linear(8, 4)
            self.dropout = nn.Dropout(0.5%s)

        def forward(self, x):
            return x + self.linear2(self.dropout(F.relu(self.linear1(x))))


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(*[Block() for _ in range(5)])
            for m in self.modules():
                if isinstance(m, nn.ReLU) or isinstance(m, nn.Dropout):
                    m.inplace = %s

        def forward(self, x):
            return self.blocks(x)


    def main():
        Net()(torch.randn(3, 4)).sum().backward()
"""

# PointNet++'s `model.apply(inplace_relu)`: the function sets `inplace` on the modules whose class name matches.
_APPLY = """
    def inplace_relu(m):
        classname = m.__class__.__name__
        if classname.find(%r) != -1:
            m.inplace = True


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8)
            self.act = nn.ReLU()
            self.fc2 = nn.Linear(8, 1)

        def forward(self, x):
            return self.fc2(self.act(torch.sigmoid(self.fc1(x))))


    def main():
        net = Net()
        net.apply(inplace_relu)
        net(torch.randn(3, 4)).sum().backward()
"""

# A file-defined optimizer (SAM): `super().__init__(params, defaults)` makes `param_groups`, whose parameters
# `first_step` perturbs in place; the second backward must be of a loss computed after that.
_SAM = """
    class SAM(torch.optim.Optimizer):
        def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
            defaults = dict(rho=rho, **kwargs)
            super().__init__(params, defaults)
            self.base_optimizer = base_optimizer(self.param_groups, **kwargs)
            self.param_groups = self.base_optimizer.param_groups

        @torch.no_grad()
        def first_step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    self.state[p]["old_p"] = p.data.clone()
                    p.add_(p.grad * group["rho"])

        @torch.no_grad()
        def second_step(self):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.data = self.state[p]["old_p"]
            self.base_optimizer.step()


    def main():
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        opt = SAM(net.parameters(), torch.optim.SGD, lr=0.1)
        x = torch.randn(5, 4)
        loss = net(x).square().mean()
        loss.backward(retain_graph=True)
        opt.first_step()
        opt.zero_grad()
        %s.backward()
        opt.second_step()
"""

# A SAC policy's squashed Gaussian: `Normal(mean, std)` is no tensor, and `log_prob(...)` is a new tensor (writing
# it in place is safe); the `tanh` of the sample saves its output (writing that raises).
_SQUASHED_GAUSSIAN = """
    from torch.distributions import Normal


    def main():
        torch.manual_seed(0)
        net = nn.Linear(3, 4)
        mean, log_std = net(torch.randn(5, 3)).chunk(2, dim=-1)
        normal = Normal(mean, log_std.clamp(-5, 2).exp())
        pre_tanh = normal.rsample()
        action = torch.tanh(pre_tanh)
        log_prob = normal.log_prob(pre_tanh)
        %s
        (log_prob.sum() + action.sum()).backward()
"""

# Two `if`s with the same test (REDQ's policy update every `delay` steps): the loss is built under the first and
# its backward and step run under the second, so a backward never meets a loss of an earlier iteration after the
# step. The number of steps is not known to the analysis.
_SAME_TEST = """
    def main():
        torch.manual_seed(0)
        pi = nn.Sequential(nn.Linear(3, 3), nn.Tanh(), nn.Linear(3, 1))
        opt_pi = torch.optim.SGD(pi.parameters(), lr=0.1)
        x = torch.randn(4, 3)
        steps = int(torch.randint(4, 5, ()).item())
        for i in range(steps):
            if i %% 2 == 0:
                pi_loss = pi(x).square().mean()
            %s
            if i %% 2 == 0:
                pi_loss.backward(retain_graph=True)
                opt_pi.step()
"""

# name -> (program defining main(), whether main() raises "modified by an inplace operation")
PROGRAMS = {
    "same_test_twice_is_one_decision": (_SAME_TEST % "pass", False),
    # `i` rebound between the tests: the second may run where the first did not (a stale loss after the step).
    "same_test_with_its_name_rebound_between": (_SAME_TEST % "i = 0", True),
    "distribution_log_prob_written": (_SQUASHED_GAUSSIAN % "log_prob -= torch.log(1 - action.pow(2) + 1e-6)", False),
    "distribution_sample_squashed_then_written": (_SQUASHED_GAUSSIAN % "action *= 2.0", True),
    "optimizer_subclass_perturbs_before_second_backward": (_SAM % "loss", True),
    "optimizer_subclass_second_loss_recomputed": (_SAM % "net(x).square().mean()", False),
    "modules_loop_turns_dropout_in_place": (_MODULES_LOOP % ("", "True"), True),
    "modules_loop_turns_dropout_out_of_place": (_MODULES_LOOP % (", inplace=True", "False"), False),
    "apply_turns_relu_in_place": (_APPLY % "ReLU", True),
    "apply_matches_no_module": (_APPLY % "Dropout", False),
    "sequential_subclass": ("""
        class Head(nn.Sequential):
            def __init__(self):
                super().__init__(nn.Linear(4, 4), nn.Sigmoid(), nn.ReLU(inplace=True))


        def main():
            Head()(torch.randn(3, 4)).sum().backward()
    """, True),
    "sequential_subclass_not_inplace": ("""
        class Head(nn.Sequential):
            def __init__(self):
                super().__init__(nn.Linear(4, 4), nn.Sigmoid(), nn.ReLU())


        def main():
            Head()(torch.randn(3, 4)).sum().backward()
    """, False),
    "inplace_through_params": (_MLP + """
        def main():
            MLP([4, 8, 8, 2], inplace=True, dropout=0.5)(torch.randn(3, 4)).sum().backward()
    """, True),
    "inplace_through_params_default": (_MLP + """
        def main():
            MLP([4, 8, 8, 2], dropout=0.5)(torch.randn(3, 4)).sum().backward()
    """, False),
    # `.float()` of a float32 tensor is that tensor: writing it writes what `pow` saved.
    "float_of_float32": (_CONVERSION % "float()", True),
    # `.double()` of it is a copy.
    "double_of_float32": (_CONVERSION % "double()", False),
    "to_float32_of_float32": (_CONVERSION % "to(torch.float32)", True),
    "type_as_of_float32": (_CONVERSION % "type_as(w)", True),
    "to_dtype_keyword_of_float32": (_CONVERSION % "to(dtype=torch.float32)", True),
    # `copy=True` makes a new tensor even when nothing changes.
    "to_copy_of_float32": (_CONVERSION % "to(torch.float32, copy=True)", False),
    "list_element_augassign": (_FPN % "F.relu(conv(f), inplace=True)", True),
    # The convolutions' outputs are not saved by anything: adding to them in place is safe.
    "list_element_augassign_unsaved": (_FPN % "conv(f)", False),
    # A custom Function's forward writing its input in place writes the caller's tensor, which `exp` saved.
    "autograd_function_writes_input": (_SCALE % ("", "Scale.apply(h).sum()"), True),
    "autograd_function_writes_its_copy": (_SCALE % ("x = x.clone()", "Scale.apply(h).sum() + h.sum()"), False),
    # What `ctx.save_for_backward` keeps is checked at the backward like any save.
    "autograd_function_saved_input_written": ("""
        class Mul(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                ctx.save_for_backward(x, w)
                return x * w

            @staticmethod
            def backward(ctx, grad):
                x, w = ctx.saved_tensors
                return grad * w, grad * x


        def main():
            x = torch.randn(4)
            y = Mul.apply(x, torch.randn(4, requires_grad=True))
            x.add_(1)
            y.sum().backward()
    """, True),
    # A `torch.compile`d function or module runs the same code: the compiled backward raises as the eager one does.
    "compiled_function": ("""
        @torch.compile(backend="eager")
        def scaled(x):
            y = x.exp()
            y.mul_(2)
            return y


        def main():
            scaled(torch.randn(3, requires_grad=True)).sum().backward()
    """, True),
    "compiled_module": ("""
        class Block(nn.Module):
            def forward(self, x):
                y = torch.sigmoid(x)
                y += 1
                return y


        def main():
            block = torch.compile(Block(), backend="eager")
            block(torch.randn(3, requires_grad=True)).sum().backward()
    """, True),
    # `model.module` of a data-parallel wrapper is the wrapped network: its weight, saved by `linear`, is written.
    "data_parallel_module_write": ("""
        def main():
            model = nn.DataParallel(nn.Linear(4, 4))
            out = model(torch.randn(2, 4, requires_grad=True))
            with torch.no_grad():
                model.module.weight.mul_(2)
            out.sum().backward()
    """, True),
    "data_parallel_module_write_after_backward": ("""
        def main():
            model = nn.DataParallel(nn.Linear(4, 4))
            out = model(torch.randn(2, 4, requires_grad=True))
            out.sum().backward()
            with torch.no_grad():
                model.module.weight.mul_(2)
    """, False),
    # Measured: with `use_reentrant=False` a write inside the checkpointed function to what its op saved raises
    # nothing, and the gradient is the one with the save intact; reentrant checkpointing raises.
    "checkpoint_not_reentrant_inner_write": (_CHECKPOINT % "False", False),
    "checkpoint_reentrant_inner_write": (_CHECKPOINT % "True", True),
    # The checkpoint keeps its inputs: writing one after the call breaks the backward.
    "checkpoint_input_written_after": ("""
        from torch.utils.checkpoint import checkpoint


        def main():
            w = torch.randn(4, 4, requires_grad=True)
            a = torch.randn(2, 4, requires_grad=True) * 1
            out = checkpoint(lambda a, w: torch.sigmoid(a @ w), a, w, use_reentrant=False)
            with torch.no_grad():
                a.mul_(2)
            out.sum().backward()
    """, True),
    # A command-line value is a Python number, never a tensor: multiplying by it saves nothing.
    "argparse_number_operand": ("""
        import argparse


        def main():
            parser = argparse.ArgumentParser()
            parser.add_argument("--scale", type=float, default=0.5)
            args = parser.parse_args([])
            h = torch.randn(4, requires_grad=True) * 2
            y = h * args.scale
            h.add_(1)
            y.sum().backward()
    """, False),
    "amp_step_before_backward": ("""
        def main():
            %s
            scaler = torch.amp.GradScaler("cpu")
            fake = G(torch.randn(2, 4))
            d_loss = D(fake.detach()).mean()
            g_loss = -D(fake).mean()
            opt_d.zero_grad()
            scaler.scale(d_loss).backward()
            scaler.step(opt_d)
            opt_g.zero_grad()
            scaler.scale(g_loss).backward()
            scaler.step(opt_g)
            scaler.update()
    """ % _GAN, True),
    "amp_ordered": ("""
        def main():
            %s
            scaler = torch.amp.GradScaler("cpu")
            fake = G(torch.randn(2, 4))
            opt_d.zero_grad()
            scaler.scale(D(fake.detach()).mean()).backward()
            scaler.step(opt_d)
            opt_g.zero_grad()
            scaler.scale(-D(fake).mean()).backward()
            scaler.step(opt_g)
            scaler.update()
    """ % _GAN, False),
    "accelerate_step_before_backward": ("""
        from accelerate import Accelerator


        def main():
            accelerator = Accelerator()
            %s
            G, D, opt_g, opt_d = accelerator.prepare(G, D, opt_g, opt_d)
            fake = G(torch.randn(2, 4))
            d_loss = D(fake.detach()).mean()
            g_loss = -D(fake).mean()
            opt_d.zero_grad()
            accelerator.backward(d_loss)
            opt_d.step()
            opt_g.zero_grad()
            accelerator.backward(g_loss)
            opt_g.step()
    """ % _GAN, True),
    "fabric_step_before_backward": ("""
        import lightning as L


        def main():
            fabric = L.Fabric()
            %s
            G, D = fabric.setup(G), fabric.setup(D)
            opt_g, opt_d = fabric.setup_optimizers(opt_g, opt_d)
            fake = G(torch.randn(2, 4))
            d_loss = D(fake.detach()).mean()
            g_loss = -D(fake).mean()
            opt_d.zero_grad()
            fabric.backward(d_loss)
            opt_d.step()
            opt_g.zero_grad()
            fabric.backward(g_loss)
            opt_g.step()
    """ % _GAN, True),
    "lightning_step_before_backward": ("""
        import lightning as L


        class GAN(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.G = nn.Linear(4, 4)
                self.D = nn.Linear(4, 1)

            def training_step(self, batch, batch_idx):
                opt_g, opt_d = self.optimizers()
                fake = self.G(batch)
                d_loss = self.D(fake.detach()).mean()
                g_loss = -self.D(fake).mean()
                opt_d.zero_grad()
                self.manual_backward(d_loss)
                opt_d.step()
                opt_g.zero_grad()
                self.manual_backward(g_loss)
                opt_g.step()

            def configure_optimizers(self):
                return [torch.optim.SGD(self.G.parameters(), lr=0.1), torch.optim.SGD(self.D.parameters(), lr=0.1)]


        def main():
            GAN().training_step(torch.randn(2, 4), 0)
    """, True),
    # Lightning runs `validation_step` under `torch.no_grad()`: nothing is saved, the write is safe there.
    "lightning_validation_step": ("""
        import lightning as L


        class Net(L.LightningModule):
            def __init__(self):
                super().__init__()
                self.body = nn.Linear(4, 4)

            def validation_step(self, batch, batch_idx):
                h = torch.sigmoid(self.body(batch))
                h.mul_(2)
                return h


        def main():
            with torch.no_grad():
                Net().validation_step(torch.randn(2, 4), 0).sum()
    """, False),
}


def _source(text: str) -> str:
    return textwrap.dedent(text).strip("\n") + "\n"


def _program(name: str) -> str:
    return (textwrap.dedent(HEADER).lstrip("\n") + "\n\n" + _source(PROGRAMS[name][0])
            + '\n\nif __name__ == "__main__":\n    main()\n')


@pytest.fixture(scope="module")
def measured(tmp_path_factory) -> tuple[Path, dict]:
    """The programs' folder and whether each one's `main()` raises (one child for all)."""
    folder = tmp_path_factory.mktemp("training")
    for file, text in STAND_INS.items():
        (folder / file).write_text(_source(text), encoding="utf-8")
    for name in PROGRAMS:
        (folder / f"{name}.py").write_text(_program(name), encoding="utf-8")
    return folder, raises_inplace_error(folder, {name: (f"{name}.py", "main()") for name in PROGRAMS})


def _found(folder: Path, *files: str) -> list[tuple[str, int, str, str]]:
    proc = cli("check", "--no-cache", "--format", "json", *files, cwd=folder)
    return [(Path(d["path"]).name, d["line"], d["code"], d["severity"])
            for d in json.loads(proc.stdout)["diagnostics"] if d["severity"] in ("error", "warning")]


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_training_structure(name: str, measured: tuple[Path, dict]) -> None:
    folder, raises = measured
    assert raises[name] is PROGRAMS[name][1], f"{name}: the label is not what torch does"
    found = _found(folder, f"{name}.py")
    if raises[name]:
        assert [severity for _, _, _, severity in found] == ["error"], found
    else:
        assert found == [], found


def _fixed(folder: Path, name: str, *flags: str) -> str:
    work = folder / "fixed" / name
    work.mkdir(parents=True, exist_ok=True)
    target = work / f"{name}.py"
    target.write_text(_program(name), encoding="utf-8")
    for file, text in STAND_INS.items():
        (work / file).write_text(_source(text), encoding="utf-8")
    cli("fix", "--apply", *flags, target.name, cwd=work)
    return target.read_text(encoding="utf-8")


def test_list_element_fix_rebinds_the_element(measured: tuple[Path, dict]) -> None:
    """`laterals[i - 1] += up` becomes `laterals[i - 1] = laterals[i - 1] + up`, a safe fix: the list is
    `forward`'s own and alone holds each lateral, made there (the label of `test_holders`, by running); the fixed
    program runs, and a second `fix` changes nothing."""
    folder, _ = measured
    fixed = _fixed(folder, "list_element_augassign")
    assert "laterals[i - 1] = laterals[i - 1] + F.interpolate(laterals[i], scale_factor=2.0)" in fixed
    assert _fixed(folder, "list_element_augassign", "--unsafe-fixes") == fixed
    work = folder / "fixed" / "list_element_augassign"
    assert raises_inplace_error(work, {"fixed": ("list_element_augassign.py", "main()")}) == {"fixed": False}
    cli("fix", "--apply", "list_element_augassign.py", cwd=work)
    assert (work / "list_element_augassign.py").read_text(encoding="utf-8") == fixed


def test_amp_step_moves_before_the_scaler_update(measured: tuple[Path, dict]) -> None:
    """The unsafe reorder of `scaler.step(opt_d)` puts it after G's backward and step but before
    `scaler.update()` (which rescales for the next iteration's steps); the fixed program runs."""
    folder, _ = measured
    fixed = _fixed(folder, "amp_step_before_backward", "--unsafe-fixes")
    lines = [line.strip() for line in fixed.splitlines()]
    assert lines.index("scaler.step(opt_g)") < lines.index("scaler.step(opt_d)") < lines.index("scaler.update()")
    assert "scaler.scale(g_loss).backward(inputs=list(G.parameters()))" in lines
    work = folder / "fixed" / "amp_step_before_backward"
    assert raises_inplace_error(work, {"fixed": ("amp_step_before_backward.py", "main()")}) == {"fixed": False}


FREEZE = """
    import torch
    import torch.nn as nn


    def main(freeze):
        emb = nn.Embedding(10, 4)
        if freeze:
            emb.weight.requires_grad = False
        emb.weight.mul_(2)
        return emb(torch.tensor([1, 2])).sum()
"""


def test_requires_grad_turned_off_on_some_paths(tmp_path: Path) -> None:
    """A parameter whose `requires_grad` an undecided branch turns off, then written in place: torch raises the
    leaf error on the path that leaves it on and not on the other, so `check` warns and names the line that
    decides it (before, the branch's `requires_grad = False` was taken as done on every path: no report)."""
    (tmp_path / "freeze.py").write_text(_source(FREEZE), encoding="utf-8")
    raises = raises_inplace_error(tmp_path, {"on": ("freeze.py", "main(False)"), "off": ("freeze.py", "main(True)")},
                                  message=LEAF_ERROR)
    assert raises == {"on": True, "off": False}
    proc = cli("check", "--no-cache", "--format", "json", "freeze.py", cwd=tmp_path)
    [found] = json.loads(proc.stdout)["diagnostics"]
    assert (found["line"], found["code"], found["severity"]) == (9, "FIP102", "warning"), found
    assert "turned off at line 8 only on some paths" in found["message"], found["message"]


ARGPARSE_FREEZE = """
    import argparse

    import torch
    import torch.nn as nn


    def main(argv=None):
        parser = argparse.ArgumentParser()
        parser.add_argument("--freeze-embed", action="store_true")
        args = parser.parse_args(%s)
        emb = nn.Embedding(10, 4)
        if args.freeze_embed:
            emb.weight.requires_grad = False
        emb.weight.mul_(2)
        return emb(torch.tensor([1, 2])).sum()


    if __name__ == "__main__":
        main()
"""


@pytest.mark.parametrize("argv,severity", [("[]", "error"), ("argv", "warning")])
def test_argparse_defaults_decide_branches(argv: str, severity: str, tmp_path: Path) -> None:
    """`parse_args([])` reads no command line: `--freeze-embed` is its default (False), the branch is decided
    and the write raises the leaf error (an error). `parse_args(argv)` reads a command line the file does not
    show: the branch is undecided and the report a warning naming the line that decides it."""
    (tmp_path / "freeze.py").write_text(_source(ARGPARSE_FREEZE % argv), encoding="utf-8")
    runs = {"default": ("freeze.py", "main([])"), "frozen": ("freeze.py", "main(['--freeze-embed'])")}
    expected = {"default": True, "frozen": severity == "error"}  # `parse_args([])` ignores the argv it is given
    assert raises_inplace_error(tmp_path, runs, message=LEAF_ERROR) == expected
    proc = cli("check", "--no-cache", "--format", "json", "freeze.py", cwd=tmp_path)
    [found] = json.loads(proc.stdout)["diagnostics"]
    assert (found["line"], found["code"], found["severity"]) == (14, "FIP102", severity), found


def test_inplace_flag_fix_turns_off_the_literal_it_came_from(measured: tuple[Path, dict]) -> None:
    """`MLP(..., inplace=True)` reaching `nn.Dropout(dropout, **params)`: no literal at the constructor to drop, so
    the unsafe fix turns the call's `inplace=True` to `False`; the fixed program runs, and no safe fix is offered."""
    folder, _ = measured
    assert _fixed(folder, "inplace_through_params") == _program("inplace_through_params")
    fixed = _fixed(folder, "inplace_through_params", "--unsafe-fixes")
    assert fixed == _program("inplace_through_params").replace("inplace=True, dropout", "inplace=False, dropout")
    work = folder / "fixed" / "inplace_through_params"
    assert raises_inplace_error(work, {"fixed": ("inplace_through_params.py", "main()")}) == {"fixed": False}
