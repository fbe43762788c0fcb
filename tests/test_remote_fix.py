"""A hazard that only a call can show (the write is in another file of the project, and only the call's arguments
make it hazardous) is repaired at its write, in that file, when that file is part of the `fix` run: the rewrite is
kept only when the call's hazard is gone and no file of the run reports anything new. Every program here is run
under torch: the label of the original, and the result of the fixed program against the intended one."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
import torchrun
from clirun import cli

from fixinplace.engine import analyse_source
from fixinplace.facts import WriteFacts

# An activation passed in by the caller: the file alone cannot tell that `x` is saved when it is written.
BLOCKS = """
    from torch import nn


    class Residual(nn.Module):
        def __init__(self, width, act):
            super().__init__()
            self.body = nn.Linear(width, width)
            self.act = act()
            self.skip = nn.Linear(width, width)

        def forward(self, x):
            skip = self.skip(x)
            x = self.act(self.body(x))
            x += skip
            return x
"""

# A residual block whose output goes through a head of another file: one call runs a write in each file.
HEADED = """
    from torch import nn

    from head import Head


    class Residual(nn.Module):
        def __init__(self, width, act):
            super().__init__()
            self.body = nn.Linear(width, width)
            self.act = act()
            self.skip = nn.Linear(width, width)
            self.head = Head(width, act)

        def forward(self, x):
            skip = self.skip(x)
            x = self.act(self.body(x))
            x += skip
            return self.head(x, skip)
"""

HEAD = """
    from torch import nn


    class Head(nn.Module):
        def __init__(self, width, act):
            super().__init__()
            self.proj = nn.Linear(width, width)
            self.act = act()

        def forward(self, x, bias):
            x = self.act(self.proj(x))
            x += bias
            return x
"""

TRAIN = """
    import torch
    from torch import nn

    from blocks import Residual


    def main():
        torch.manual_seed(0)
        net = Residual(4, nn.{act})
        loss = net(torch.randn(3, 4)).pow(2).sum()
        loss.backward()
        with open("result.txt", "w") as f:
            f.write(f"{{loss.item():.8f}} {{net.body.weight.grad.sum().item():.8f}}")


    if __name__ == "__main__":
        main()
"""
CALL_LINE = 10  # `loss = net(...)`


def _write(folder: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (folder / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def _train(act: str = "ReLU") -> str:
    return TRAIN.format(act=act)


def _run(folder: Path) -> str:
    """`ok` (and the result it wrote), or the error it raised."""
    proc = torchrun.run(folder, "train.py")
    if proc.returncode == 0:
        return "ok " + (folder / "result.txt").read_text(encoding="utf-8")
    return "raises-saved" if "modified by an inplace operation" in proc.stderr else "other: " + proc.stderr[-300:]


def _check(folder: Path) -> list[tuple[str, int, str, str]]:
    proc = cli("check", "--no-cache", "--format", "json", ".", cwd=folder)
    assert proc.returncode in (0, 1), proc.stderr
    return [(d["path"], d["line"], d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]]


def _texts(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("*.py"))}


def test_a_call_site_hazard_is_repaired_at_its_write_in_the_other_file(tmp_path):
    """The module file alone reports nothing (its activation is the caller's choice); the call reports the error;
    `fix --apply .` rewrites the write in the module's file, the training script is left alone, the fixed program
    computes what the intended one does, and a second fix changes nothing."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train()})
    assert _run(tmp_path) == "raises-saved"
    assert _check(tmp_path) == [("train.py", CALL_LINE, "FIP101", "error")]
    train = (tmp_path / "train.py").read_text(encoding="utf-8")

    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "x = x + skip" in (tmp_path / "blocks.py").read_text(encoding="utf-8")
    assert (tmp_path / "train.py").read_text(encoding="utf-8") == train
    assert _check(tmp_path) == []
    fixed = _run(tmp_path)

    intended = tmp_path / "intended"
    intended.mkdir()
    _write(intended, {"blocks.py": BLOCKS.replace("x += skip", "x = x + skip"), "train.py": _train()})
    assert fixed == _run(intended) and fixed.startswith("ok ")

    before = _texts(tmp_path)
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert _texts(tmp_path) == before


def test_the_diff_names_the_written_file_and_the_fix_names_the_call(tmp_path):
    """Without `--apply`: the diff is of the module's file, the summary counts the call's hazard, and nothing is
    written."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train()})
    before = _texts(tmp_path)
    proc = cli("fix", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert "+++ b/blocks.py" in proc.stdout and "+        x = x + skip" in proc.stdout
    assert "train.py" not in proc.stdout.split("+++ b/blocks.py")[1].split("\n@@")[0]
    assert "Would fix 1 hazard in 1 file" in proc.stdout + proc.stderr
    assert _texts(tmp_path) == before


def test_every_write_a_call_runs_is_repaired_or_none(tmp_path):
    """One call's hazard stands for writes in two files: both are repaired together when both files are in the
    run; with one of them left out of the run, neither is changed (the call would still fail)."""
    _write(tmp_path, {"blocks.py": HEADED, "head.py": HEAD, "train.py": _train()})
    assert _run(tmp_path) == "raises-saved"
    assert _check(tmp_path) == [("train.py", CALL_LINE, "FIP101", "error")]
    before = _texts(tmp_path)

    proc = cli("fix", "--apply", "train.py", "blocks.py", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _texts(tmp_path) == before

    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = _texts(tmp_path)
    assert "x = x + skip" in after["blocks.py"] and after["train.py"] == before["train.py"]
    assert after["head.py"] != before["head.py"]
    assert _run(tmp_path).startswith("ok ")
    assert _check(tmp_path) == []


def test_a_clean_caller_leaves_the_module_alone(tmp_path):
    """With an activation that saves nothing the write needs (`nn.Identity`), nothing is reported and nothing is
    rewritten: the module's file is repaired only for a call that shows a hazard."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train(act="Identity")})
    assert _run(tmp_path).startswith("ok ")
    before = _texts(tmp_path)
    assert _check(tmp_path) == []
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert _texts(tmp_path) == before


DECODER = """
    import torch
    from torch import nn


    class Decoder(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.pos = nn.Parameter(torch.ones(width))
            self.norm = nn.LayerNorm(width)

        def forward(self, token):
            token += self.pos
            return self.norm(token)
"""

TWO_DECODERS = """
    import torch
    from torch import nn

    from decoder import Decoder


    def main():
        torch.manual_seed(0)
        enc = nn.Linear(4, 4)
        first, second = Decoder(4), Decoder(4)
        tokens = enc(torch.randn(3, 4))
        loss = (first(tokens) + second(tokens)).pow(2).sum()
        loss.backward()
        with open("result.txt", "w") as f:
            f.write(f"{loss.item():.8f} {enc.weight.grad.sum().item():.8f}")


    if __name__ == "__main__":
        main()
"""


def test_a_write_to_the_callee_argument_is_only_an_unsafe_fix(tmp_path):
    """Two decoders read the same tokens, and each adds its position embedding into its argument: the second
    call writes what the first one's LayerNorm saved. Keeping that write (a clone where LayerNorm saves) or
    dropping it (the maintainers' `token = token + self.pos`) are both rewrites of what every caller of the
    decoder sees, so neither is safe: `fix` changes nothing and names the unsafe fix; `--unsafe-fixes` drops the
    write, which computes what the intended program does."""
    _write(tmp_path, {"decoder.py": DECODER, "train.py": TWO_DECODERS})
    assert _run(tmp_path) == "raises-saved"
    assert _check(tmp_path) == [("train.py", 12, "FIP101", "error")]
    before = _texts(tmp_path)
    proc = cli("fix", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert _texts(tmp_path) == before
    assert "only an unsafe fix" in proc.stdout and "in decoder.py (line 12)" in proc.stdout, proc.stdout

    assert cli("fix", "--apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    assert "token = token + self.pos" in (tmp_path / "decoder.py").read_text(encoding="utf-8")
    intended = tmp_path / "intended"
    intended.mkdir()
    _write(intended, {"decoder.py": DECODER.replace("token += self.pos", "token = token + self.pos"),
                      "train.py": TWO_DECODERS})
    fixed = _run(tmp_path)
    assert fixed == _run(intended) and fixed.startswith("ok ")


def test_the_call_carries_the_writes_it_runs_through_the_cache_record(tmp_path):
    """The facts of a call's diagnostic name each write it runs elsewhere, in that file's own lines, and survive the
    JSON the cache keeps."""
    _write(tmp_path, {"blocks.py": HEADED, "head.py": HEAD, "train.py": _train()})
    path = tmp_path / "train.py"
    found = [d for d in analyse_source(path.read_text(encoding="utf-8"), str(path)) if d.code == "FIP101"]
    assert len(found) == 1 and found[0].facts is not None
    remotes = found[0].facts.remotes
    assert [(Path(r.path).name, r.span.line, r.facts.target, r.facts.form) for r in remotes] == [
        ("blocks.py", 17, "x", "augassign"), ("head.py", 12, "x", "augassign")]
    assert found[0].message.startswith("this call runs blocks.py:17, where")  # the write named first
    assert WriteFacts.from_json(json.loads(json.dumps(found[0].facts.to_json()))) == found[0].facts


EVAL = """
    import torch
    from torch import nn

    from blocks import Residual


    def main():
        torch.manual_seed(0)
        net = Residual(4, nn.Identity)
        with open("eval.txt", "w") as f:
            f.write(f"{net(torch.randn(3, 4)).sum().item():.8f}")


    if __name__ == "__main__":
        main()
"""


def test_a_second_caller_for_which_the_write_is_safe_is_checked_and_keeps_its_result(tmp_path):
    """The module is used by a training script (whose activation makes the write hazardous) and by an evaluation
    script (whose activation saves nothing): the repair is checked against both, and the evaluation computes
    what it computed before."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train(), "evaluate.py": EVAL})
    assert torchrun.run(tmp_path, "evaluate.py").returncode == 0
    before = (tmp_path / "eval.txt").read_text(encoding="utf-8")
    assert _check(tmp_path) == [("train.py", CALL_LINE, "FIP101", "error")]
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert "x = x + skip" in (tmp_path / "blocks.py").read_text(encoding="utf-8")
    assert _run(tmp_path).startswith("ok ")
    assert torchrun.run(tmp_path, "evaluate.py").returncode == 0
    assert (tmp_path / "eval.txt").read_text(encoding="utf-8") == before
    assert _check(tmp_path) == []


@pytest.mark.slow
def test_fix_verify_drops_a_call_fix_whose_file_did_not_verify_and_counts_it_again(tmp_path):
    """`fix --verify` keeps a file's patch only when it verifies. The module's repair runs through the calling file
    (its `forward` cannot be run on its own: its constructor needs the caller's arguments), whose `main()` returns
    nothing and writes a file: nothing to compare, so the patch is dropped, and the call's hazard counts as
    remaining, not fixed."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train()})
    before = _texts(tmp_path)
    proc = cli("fix", "--verify", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "blocks.py: fix not applied: verification skipped" in proc.stderr
    assert "Fixed 0 hazards in 0 files; 1 remains" in proc.stdout + proc.stderr
    assert _texts(tmp_path) == before


@pytest.mark.slow
def test_fix_verify_keeps_a_call_fix_proved_through_the_caller(tmp_path):
    """The same project, with a `main()` that returns its loss and gradient: the repair in blocks.py is verified by
    running train.py with blocks.py patched, so `fix --verify --apply` writes it."""
    train = _train().replace(
        '        with open("result.txt", "w") as f:\n'
        '            f.write(f"{loss.item():.8f} {net.body.weight.grad.sum().item():.8f}")\n',
        "        return loss.detach(), net.body.weight.grad\n")
    assert "return loss.detach()" in train
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": train})
    proc = cli("fix", "--verify", "--apply", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "x = x + skip" in (tmp_path / "blocks.py").read_text(encoding="utf-8")
    assert "fix not applied" not in proc.stderr, proc.stderr
    assert _check(tmp_path) == []


NORMALIZER = """
    import torch


    class Normalizer:
        def __init__(self, squash):
            self.squash = squash

        def scores(self, logits):
            probs = self.squash(logits)
            probs /= probs.sum(-1, keepdim=True)
            return probs
"""

SCORE = """
    import torch

    from normalizer import Normalizer


    def main():
        torch.manual_seed(0)
        logits = torch.randn(3, 4, requires_grad=True)
        probs = Normalizer(torch.sigmoid).scores(logits * 2)
        probs.pow(2).sum().backward()
        with open("result.txt", "w") as f:
            f.write(f"{probs.sum().item():.8f} {logits.grad.sum().item():.8f}")


    if __name__ == "__main__":
        main()
"""


def test_a_method_of_a_helper_class_is_repaired_in_its_file(tmp_path):
    """A method of a plain class writes what the function the caller chose (`torch.sigmoid`) saved: repaired in
    the class's file, as the intended program does it."""
    _write(tmp_path, {"normalizer.py": NORMALIZER, "train.py": SCORE})
    assert _run(tmp_path) == "raises-saved"
    assert _check(tmp_path) == [("train.py", 9, "FIP101", "error")]
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert "probs = probs / probs.sum(-1, keepdim=True)" in (tmp_path / "normalizer.py").read_text(encoding="utf-8")
    intended = tmp_path / "intended"
    intended.mkdir()
    _write(intended, {"normalizer.py": NORMALIZER.replace("probs /= probs.sum(-1, keepdim=True)",
                                                         "probs = probs / probs.sum(-1, keepdim=True)"),
                      "train.py": SCORE})
    fixed = _run(tmp_path)
    assert fixed == _run(intended) and fixed.startswith("ok ")


GPT_BLOCK = """
    import torch
    from torch import nn
    from torch.nn import functional as F


    class LayerNorm(nn.Module):
        def __init__(self, ndim):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(ndim))
            self.bias = nn.Parameter(torch.zeros(ndim))

        def forward(self, input):
            return F.layer_norm(input, self.weight.shape, self.weight, self.bias, 1e-5)


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.ln_1 = LayerNorm(width)
            self.attn = nn.Linear(width, width)
            self.ln_2 = LayerNorm(width)
            self.mlp = nn.Linear(width, width)

        def forward(self, x):
            x += self.attn(self.ln_1(x))
            x += self.mlp(self.ln_2(x))
            return x
"""

GPT_TRAIN = """
    import torch
    from torch import nn

    from block import Block


    def main():
        torch.manual_seed(0)
        wte, blocks = nn.Embedding(10, 4), nn.ModuleList([Block(4), Block(4)])
        x = wte(torch.randint(0, 10, (2, 3)))
        for block in blocks:
            x = block(x)
        loss = x.pow(2).sum()
        loss.backward()
        with open("result.txt", "w") as f:
            f.write(f"{loss.item():.8f} {wte.weight.grad.sum().item():.8f}")


    if __name__ == "__main__":
        main()
"""


def test_a_call_whose_writes_follow_one_another_gets_them_all_rewritten(tmp_path):
    """nanoGPT's block with `+=`: the call runs two writes of the block's argument. Once the first is made out of
    place, the second writes a tensor the file itself made, which the file alone now reports: that is the call's
    own second write, not a new hazard, and it is repaired next (unsafely: `x` is the block's argument); the
    result is nanoGPT's `x = x + ...`."""
    _write(tmp_path, {"block.py": GPT_BLOCK, "train.py": GPT_TRAIN})
    assert _run(tmp_path) == "raises-saved"
    assert _check(tmp_path) == [("train.py", 12, "FIP101", "error")]
    assert cli("fix", "--apply", "--unsafe-fixes", ".", cwd=tmp_path).returncode == 0
    fixed_block = (tmp_path / "block.py").read_text(encoding="utf-8")
    intended_block = GPT_BLOCK.replace("x += self.attn(self.ln_1(x))", "x = x + self.attn(self.ln_1(x))").replace(
        "x += self.mlp(self.ln_2(x))", "x = x + self.mlp(self.ln_2(x))")
    assert fixed_block == textwrap.dedent(intended_block).lstrip("\n")
    intended = tmp_path / "intended"
    intended.mkdir()
    _write(intended, {"block.py": intended_block, "train.py": GPT_TRAIN})
    fixed = _run(tmp_path)
    assert fixed == _run(intended) and fixed.startswith("ok ")


def test_a_notebook_calling_into_a_module_gets_the_module_repaired(tmp_path):
    """A notebook imports the module from its folder as a script would: the call in a cell reports the hazard (by
    cell), `fix --apply .` repairs the module, the notebook is left as it was, and a second run changes nothing."""
    nbformat = pytest.importorskip("nbformat")
    _write(tmp_path, {"blocks.py": BLOCKS})
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import torch\nfrom torch import nn\n\nfrom blocks import Residual"),
                nbformat.v4.new_markdown_cell("Train one step."),
                nbformat.v4.new_code_cell("torch.manual_seed(0)\nnet = Residual(4, nn.ReLU)\n"
                                          "loss = net(torch.randn(3, 4)).pow(2).sum()\nloss.backward()")]
    nbformat.write(nb, str(tmp_path / "train.ipynb"))
    proc = cli("check", "--no-cache", "--format", "json", ".", cwd=tmp_path)
    found = [(d["path"], d.get("cell"), d["line"], d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]
             if d["severity"] in ("error", "warning")]
    assert found == [("train.ipynb", 3, 3, "FIP101", "error")]
    notebook = (tmp_path / "train.ipynb").read_bytes()
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert "x = x + skip" in (tmp_path / "blocks.py").read_text(encoding="utf-8")
    assert (tmp_path / "train.ipynb").read_bytes() == notebook
    before = _texts(tmp_path)
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert _texts(tmp_path) == before


# A unit whose input another name holds (`identity = x`) passes it to a block that writes it in place (ReLU with
# inplace=True): dropping `inplace=True` would change what `identity` holds, so the sum the unit returns. The first
# unit's skip Linear saves the input the block writes: the backward raises.
ALIASED_INPUT = """
    from torch import nn


    class Block(nn.Module):
        def __init__(self, width):
            super().__init__()
            self.act = nn.ReLU(inplace=True)
            self.fc = nn.Linear(width, width)

        def forward(self, x):
            x = self.act(x)
            return self.fc(x)


    class Unit(nn.Module):
        def __init__(self, width, resize):
            super().__init__()
            self.resize = resize
            if resize:
                self.skip = nn.Linear(width, width)
            self.body = nn.Sequential(Block(width))

        def forward(self, x):
            if self.resize:
                identity = self.skip(x)
            else:
                identity = x
            x = self.body(x)
            return x + identity


    class Residual(nn.Module):
        def __init__(self, width, act):
            super().__init__()
            self.body = nn.Linear(width, width)
            self.features = nn.Sequential(self.body, Unit(width, True), Unit(width, False))

        def forward(self, x):
            return self.features(x)
"""


def test_dropping_a_write_another_name_sees_is_no_safe_fix(tmp_path):
    """Dropping `inplace=True` from the block is no safe fix of the call (the block's input is its caller's `x`,
    which `identity` also holds); the safe fix keeps what the program computes: it clones what the skip Linear
    saves, and the block still writes its input in place. Labelled by running: the fixed program's loss and
    gradient are those of the same clone written by hand; dropping `inplace=True` gives others."""
    _write(tmp_path, {"blocks.py": ALIASED_INPUT, "train.py": _train()})
    assert _run(tmp_path) == "raises-saved"
    proc = cli("check", "--no-cache", "--format", "json", "train.py", cwd=tmp_path)
    (found,) = json.loads(proc.stdout)["diagnostics"]
    assert not (found["fix"]["applicability"] == "safe" and "without `inplace=True`" in found["fix"]["description"])

    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 0
    assert "nn.ReLU(inplace=True)" in (tmp_path / "blocks.py").read_text(encoding="utf-8")
    fixed = _run(tmp_path)
    for name, text in (("cloned", ALIASED_INPUT.replace("self.skip(x)", "self.skip(x.clone())")),
                       ("dropped", ALIASED_INPUT.replace("nn.ReLU(inplace=True)", "nn.ReLU()"))):
        (tmp_path / name).mkdir()
        _write(tmp_path / name, {"blocks.py": text, "train.py": _train()})
    assert fixed.startswith("ok ") and fixed == _run(tmp_path / "cloned")
    assert _run(tmp_path / "dropped") != fixed


def test_fix_of_the_caller_alone_names_the_file_its_write_is_in(tmp_path):
    """`fix train.py` does not rewrite blocks.py, which it was not given (as Ruff, it touches only its files): the
    call's hazard remains, and the summary says where its write is and which command repairs it there."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train()})
    before = _texts(tmp_path)
    proc = cli("fix", "--apply", "train.py", cwd=tmp_path)
    assert proc.returncode == 1 and _texts(tmp_path) == before
    output = proc.stdout + proc.stderr
    assert f"  train.py:{CALL_LINE}: FIP101 writes in blocks.py" in output, output
    assert "`fixinplace fix train.py blocks.py`" in output, output
    assert cli("fix", "--apply", "train.py", "blocks.py", cwd=tmp_path).returncode == 0
    assert _check(tmp_path) == []


STEPS = """
    def update(critic, actor, opt_c, x):
        c_loss = critic(x).square().mean()
        actor_loss = -critic(actor(x)).mean()
        c_loss.backward()
        opt_c.step()
        return actor_loss
"""

SQUASH = """
    import torch


    def squash(x):
        y = torch.sigmoid(x)
        y += 1
        return y
"""

STEPPING_PROGRAM = """
    import torch
    import torch.nn as nn

    from helpers import squash
    from steps import update


    def main():
        torch.manual_seed(0)
        critic = nn.Linear(3, 1)
        actor = nn.Linear(3, 3)
        opt_c = torch.optim.SGD(critic.parameters(), lr=0.1)
        x = torch.randn(4, 3)
        actor_loss = update(critic, actor, opt_c, x)
        actor_loss.backward()
        w = torch.randn(3, requires_grad=True)
        squash(w).sum().backward()
"""


def test_what_remains_after_fixes_names_the_files_of_the_run(tmp_path):
    """`fix` (without `--apply`) analyses the caller again against the fixed text of the helper it imports, in a
    temporary copy of the files: the hazard that remains (a step in steps.py, which no fix moves across the two
    functions) is a call of a file of the run, named by its own path, never by that copy's."""
    _write(tmp_path, {"steps.py": STEPS, "helpers.py": SQUASH, "program.py": STEPPING_PROGRAM})
    proc = cli("fix", ".", cwd=tmp_path)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1 and "y = y + 1" in output, output
    assert "1 remains" in output and "fixinplace-shadow" not in output, output
    assert "this run does not include" not in output, output


# A loss object (not a module) that steps the model it is given, then builds the critic's loss on the model's
# output: the critic's backward runs through the model's weights the step just rewrote.
CRITIC_LOSS = """
    import torch


    class CriticLoss:
        def __init__(self, critic):
            self.critic = critic
            self.critic_optimizer = torch.optim.SGD(critic.parameters(), lr=0.1)

        def __call__(self, model, optimizer, x):
            out = model(x)
            score = self.critic(out).mean()
            model_loss = out.pow(2).mean() - score
            optimizer.zero_grad()
            model_loss.backward(retain_graph=True)
            optimizer.step()
            critic_loss = score
            self.critic_optimizer.zero_grad()
            critic_loss.backward()
            self.critic_optimizer.step()
            return model_loss.item()
"""

CRITIC_TRAIN = """
    import torch
    from torch import nn

    from losses import CriticLoss


    def main():
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4))
        critic = nn.Linear(4, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        loss_fn = CriticLoss(critic)
        losses = [loss_fn(model, optimizer, torch.randn(3, 4)) for _ in range(2)]
        with open("result.txt", "w") as f:
            f.write(" ".join(f"{v:.8f}" for v in losses + [p.sum().item() for p in critic.parameters()]))


    if __name__ == "__main__":
        main()
"""


def test_an_optimizer_step_in_another_file_moves_after_the_backward_there(tmp_path):
    """The step and the backward it breaks stand in a method of another file: with `--unsafe-fixes`, the step
    moves after that backward in that file, the backward restricted to the critic's parameters, named through the
    module that holds them (the loss object itself has no `.parameters()`). Labelled by running: the original
    raises; the fixed program computes what the same move written by hand does; without `--unsafe-fixes` nothing
    changes."""
    _write(tmp_path, {"losses.py": CRITIC_LOSS, "train.py": CRITIC_TRAIN})
    assert _run(tmp_path) == "raises-saved"
    assert [(p, c, s) for p, _, c, s in _check(tmp_path)] == [("train.py", "FIP103", "error")]
    before = _texts(tmp_path)
    assert cli("fix", "--apply", ".", cwd=tmp_path).returncode == 1
    assert _texts(tmp_path) == before

    proc = cli("fix", "--apply", "--unsafe-fixes", ".", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    after = _texts(tmp_path)
    assert after["train.py"] == before["train.py"]
    assert "critic_loss.backward(inputs=list(self.critic.parameters()))" in after["losses.py"], after["losses.py"]
    fixed = _run(tmp_path)
    moved = CRITIC_LOSS.replace("            optimizer.step()\n", "").replace(
        "critic_loss.backward()\n            self.critic_optimizer.step()\n",
        "critic_loss.backward(inputs=list(self.critic.parameters()))\n            self.critic_optimizer.step()\n"
        "            optimizer.step()\n")
    (tmp_path / "intended").mkdir()
    _write(tmp_path / "intended", {"losses.py": moved, "train.py": CRITIC_TRAIN})
    assert fixed.startswith("ok ") and fixed == _run(tmp_path / "intended")


def test_check_of_the_caller_alone_says_which_file_its_fix_writes(tmp_path):
    """`check train.py` marks the call `[*]` (the repair passes with blocks.py as it is on disk), and its footer
    says that this fix writes blocks.py, which `fix` must be given too; with both files checked it says nothing
    more. The same footer comes from the cache (the fix records the file it writes)."""
    _write(tmp_path, {"blocks.py": BLOCKS, "train.py": _train()})
    footer = ("1 of these is a fix of a call made in blocks.py, which this check was not given (`fix` writes only the "
              "files it is given: give it that file too)")
    for _ in range(2):  # cold, then from the cache
        proc = cli("check", "train.py", cwd=tmp_path)
        assert proc.returncode == 1 and "[*]" in proc.stdout and footer in proc.stdout, proc.stdout
    proc = cli("check", "--no-cache", ".", cwd=tmp_path)
    assert "[*] 1 fixable with `fixinplace fix --apply`." in proc.stdout and "check was not given" not in proc.stdout
