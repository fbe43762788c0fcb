"""A file is analysed with the modules of its own project that it imports: a model defined in one file and
trained in another is one program. Each program here is also run under torch, so its label is measured."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torchrun
from clirun import cli

from fixinplace.analysis.project import dependency_files, resolve

MODELS = """
    import torch
    from torch import nn


    class Discriminator(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))

        def forward(self, x):
            return torch.sigmoid(self.net(x))


    if __name__ == "__main__":  # not run when imported
        d = Discriminator()
        out = d(torch.randn(2, 4))
        out.add_(1)
        out.sum().backward()
"""

TRAIN = """
    import torch
    {import_line}


    def main():
        torch.manual_seed(0)
        gen = torch.nn.Linear(4, 4)
        disc = {ctor}
        opt_d = torch.optim.SGD(disc.parameters(), lr=0.1)
        fake = gen(torch.randn(2, 4))
        fake_out = disc(fake).mean()
        d_loss = 1 - fake_out
        d_loss.backward(retain_graph=True)
        {step_before}
        g_loss = fake_out
        g_loss.backward()
        {step_after}


    if __name__ == "__main__":
        main()
"""


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _run(folder: Path, script: str) -> str:
    """`ok`, `raises-saved` or `other` when the script runs as `python script` from its folder."""
    proc = torchrun.run(folder, script)
    if proc.returncode == 0:
        return "ok"
    return "raises-saved" if "modified by an inplace operation" in proc.stderr else "other: " + proc.stderr[-300:]


def _check(folder: Path, *paths: str) -> list[dict]:
    proc = cli("check", "--no-cache", "--format", "json", *paths, cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)["diagnostics"]


def _train(import_line: str, ctor: str, step_first: bool) -> str:
    return TRAIN.format(import_line=import_line, ctor=ctor, step_before="opt_d.step()" if step_first else "",
                        step_after="" if step_first else "opt_d.step()")


@pytest.mark.parametrize("import_line, ctor", [
    ("from models import Discriminator", "Discriminator()"),
    ("import models", "models.Discriminator()"),
    ("import models as m", "m.Discriminator()"),
])
@pytest.mark.parametrize("step_first", [True, False])
def test_a_model_from_a_sibling_module_is_analysed_with_the_training_loop(tmp_path, import_line, ctor, step_first):
    _write(tmp_path, {"models.py": MODELS, "train.py": _train(import_line, ctor, step_first)})
    runtime = _run(tmp_path, "train.py")
    assert runtime == ("raises-saved" if step_first else "ok")
    found = _check(tmp_path, "train.py")
    if not step_first:
        assert found == []
        return
    assert [(d["path"], d["code"], d["severity"]) for d in found] == [("train.py", "FIP103", "error")]
    message = found[0]["message"]
    # The save is named in the file it is in; related locations stay in the checked file.
    assert "saved by `Linear` at models.py:" in message, message
    assert found[0]["line"] == 14


def test_a_step_that_breaks_the_saves_of_a_sibling_modules_forward_gets_an_unsafe_fix(tmp_path):
    """The saves are made in models.py, the step and the backwards in train.py: the repair (the step moved after
    the backward that needs the old weights, that backward restricted to what it trains) edits train.py only,
    and the fixed script runs."""
    _write(tmp_path, {"models.py": MODELS, "train.py": _train("from models import Discriminator", "Discriminator()",
                                                              True)})
    assert cli("fix", "--apply", "train.py", cwd=tmp_path).returncode == 1  # no safe fix: the order is the meaning
    proc = cli("fix", "--apply", "--unsafe-fixes", "train.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    fixed = (tmp_path / "train.py").read_text(encoding="utf-8")
    assert "g_loss.backward(inputs=list(gen.parameters()))\n    opt_d.step()" in fixed, fixed
    assert _run(tmp_path, "train.py") == "ok"
    assert _check(tmp_path, "train.py") == []


def test_relative_imports_inside_a_package(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/nets/__init__.py": "from .disc import Discriminator\n",
        "pkg/nets/disc.py": MODELS,
        "pkg/train.py": _train("from .nets import Discriminator", "Discriminator()", True),
    })
    proc = torchrun.run(tmp_path, "pkg.train", module=True)
    assert "modified by an inplace operation" in proc.stderr
    found = _check(tmp_path, "pkg")
    # (disc.py's own `__main__` block writes a saved output: a hazard of that file.)
    assert [(Path(d["path"]).as_posix(), d["code"], d["severity"]) for d in found] == \
        [("pkg/nets/disc.py", "FIP101", "error"), ("pkg/train.py", "FIP103", "error")]
    assert "nets/disc.py:" in found[1]["message"]


def test_writes_in_the_imported_module_are_reported_there_only(tmp_path):
    """The imported module's own `__main__` block is a hazard of that file, found when that file is checked,
    never reported at a position of the file that imports it."""
    _write(tmp_path, {"models.py": MODELS, "train.py": _train("from models import Discriminator",
                                                               "Discriminator()", False)})
    assert _run(tmp_path, "models.py") == "raises-saved"
    found = _check(tmp_path, ".")
    assert [(d["path"], d["line"], d["code"]) for d in found] == [("models.py", 17, "FIP101")]


def test_unreadable_or_broken_project_modules_are_unknown_not_errors(tmp_path):
    _write(tmp_path, {
        "broken.py": "def f(:\n",
        "cyc_a.py": "from cyc_b import g\n\ndef f(x):\n    return g(x)\n",
        "cyc_b.py": "from cyc_a import f\n\ndef g(x):\n    return x\n",
        "train.py": """
            import torch
            from broken import Net
            from cyc_a import f

            x = torch.randn(3, requires_grad=True)
            y = f(x.exp())
            y.add_(1)
            y.sum().backward()
        """,
    })
    found = _check(tmp_path, "train.py")
    # `f` returns its argument through a cycle of imports: the write is to `exp`'s saved output.
    assert [(d["code"], d["line"]) for d in found] == [("FIP101", 7)]


def test_resolution_follows_python(tmp_path):
    _write(tmp_path, {"a/__init__.py": "", "a/b.py": "", "a/c/__init__.py": "", "a/c/d.py": "", "top.py": ""})
    importer = tmp_path / "a" / "c" / "d.py"
    assert resolve(importer, "b", 2) == tmp_path / "a" / "b.py"
    assert resolve(importer, "", 1) == tmp_path / "a" / "c" / "__init__.py"
    assert resolve(importer, "a.b", 0) == tmp_path / "a" / "b.py"  # from the folder above the top package
    assert resolve(importer, "top", 0) == tmp_path / "top.py"
    assert resolve(importer, "torch", 0) is None
    fifo = tmp_path / "fifo.py"
    try:
        import os

        os.mkfifo(fifo)
    except (AttributeError, OSError):
        return
    assert resolve(tmp_path / "x.py", "fifo", 0) is None  # never opened: not a regular file


def test_dependencies_of_a_file_for_the_cache(tmp_path):
    _write(tmp_path, {"models.py": "from layers import Block\n", "layers.py": "", "train.py": "import models\n"})
    deps = dependency_files(str(tmp_path / "train.py"), (tmp_path / "train.py").read_text())
    assert [p.name for p in deps] == ["models.py", "layers.py"]


def test_an_edited_imported_module_invalidates_the_cached_result(tmp_path):
    _write(tmp_path, {"models.py": MODELS, "train.py": _train("from models import Discriminator",
                                                               "Discriminator()", True)})
    first = cli("check", "--format", "json", "train.py", cwd=tmp_path)
    assert [d["code"] for d in json.loads(first.stdout)["diagnostics"]] == ["FIP103"]
    # The discriminator no longer saves anything its step changes: a frozen, parameter-free module.
    _write(tmp_path, {"models.py": MODELS.replace(
        "nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))", "nn.Identity()").replace(
        "torch.sigmoid(self.net(x))", "self.net(x).sum(-1, keepdim=True)")})
    second = cli("check", "--format", "json", "train.py", cwd=tmp_path)
    assert json.loads(second.stdout)["diagnostics"] == []


def test_a_hazard_run_by_a_call_into_another_file_is_reported_at_the_call(tmp_path):
    """The optimizer steps and the backward live in a trainer module; the file that calls it has no in-place
    syntax at all (the text pre-filter must not skip it)."""
    _write(tmp_path, {
        "models.py": MODELS,
        "trainer.py": """
            import torch


            class Trainer:
                def __init__(self, gen, disc, lr=0.1, optimizer_class=torch.optim.SGD):
                    self.gen, self.disc = gen, disc
                    self.opt_d = optimizer_class(disc.parameters(), lr=lr)

                def train_step(self, z):
                    fake_out = self.disc(self.gen(z)).mean()
                    d_loss = 1 - fake_out
                    d_loss.backward(retain_graph=True)
                    self.opt_d.step()
                    fake_out.backward()
        """,
        "run.py": """
            import torch
            from models import Discriminator
            from trainer import Trainer


            def main():
                torch.manual_seed(0)
                trainer = Trainer(torch.nn.Linear(4, 4), Discriminator())
                trainer.train_step(torch.randn(2, 4))


            if __name__ == "__main__":
                main()
        """,
    })
    assert _run(tmp_path, "run.py") == "raises-saved"
    found = _check(tmp_path, "run.py")
    assert [(d["path"], d["line"], d["code"], d["severity"]) for d in found] == [("run.py", 9, "FIP103", "error")]
    assert found[0]["message"].startswith("this call runs trainer.py:13, where `self.opt_d.step()` updates")
    # Nothing to rewrite in run.py: the repair moves the step in trainer.py, after the backward there (unsafe).
    fix = found[0]["fix"]
    assert fix["applicability"] == "unsafe" and fix["description"].startswith("in trainer.py (line 13): Move"), fix


def test_a_call_site_hazard_whose_save_is_here_is_fixed_here(tmp_path):
    """A helper of another file writes its argument in place; the caller passed what its own `relu` saved. The
    error is reported at the call, and the safe fix clones the saved tensor where the caller makes it: the
    helper (which other callers may rely on) is left alone, the fixed program runs, a second fix changes nothing."""
    _write(tmp_path, {
        "helpers.py": """
            def add_bias(h, b):
                h += b
                return h
        """,
        "train.py": """
            import torch
            from helpers import add_bias


            def main():
                w = torch.randn(4, requires_grad=True)
                h = torch.relu(w * 2)
                out = add_bias(h, torch.ones(4))
                out.sum().backward()


            if __name__ == "__main__":
                main()
        """,
    })
    helper = (tmp_path / "helpers.py").read_text(encoding="utf-8")
    assert _run(tmp_path, "train.py") == "raises-saved"
    found = _check(tmp_path, "train.py")
    assert [(d["line"], d["code"], d["severity"]) for d in found] == [(8, "FIP101", "error")]
    assert found[0]["message"].startswith("this call runs helpers.py:2, where")
    assert found[0]["fix"]["applicability"] == "safe", found[0]["fix"]
    cli("fix", "--apply", "train.py", cwd=tmp_path)
    fixed = (tmp_path / "train.py").read_text(encoding="utf-8")
    assert "h = torch.relu(w * 2).clone()" in fixed
    assert (tmp_path / "helpers.py").read_text(encoding="utf-8") == helper
    assert _run(tmp_path, "train.py") == "ok"
    cli("fix", "--apply", "train.py", cwd=tmp_path)
    assert (tmp_path / "train.py").read_text(encoding="utf-8") == fixed


def test_torch_own_files_are_never_project_modules(tmp_path):
    """Checking torch's sources (or a project that vendors a `torch` package), `import torch` and relative imports
    between its modules stay torch names: the analysis models torch from its measured table, it does not run it."""
    _write(tmp_path, {"torch/__init__.py": "", "torch/nn/__init__.py": "", "torch/nn/init.py": "",
                      "torch/nn/modules/__init__.py": "", "torch/nn/modules/conv.py": "",
                      "app/torch/models.py": "", "app/torch/train.py": ""})
    conv = tmp_path / "torch" / "nn" / "modules" / "conv.py"
    assert resolve(conv, "torch", 0) is None
    assert resolve(conv, "torch.nn.init", 0) is None
    assert resolve(conv, "init", 2) is None
    # A project folder that happens to be called `torch` but is no package is an ordinary project.
    assert resolve(tmp_path / "app" / "torch" / "train.py", "models", 0) == tmp_path / "app" / "torch" / "models.py"
