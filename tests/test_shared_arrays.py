"""Tensors that share a NumPy array's memory (FIP105): `torch.from_numpy(a)`, `torch.as_tensor(a)`.

Each program is labelled by running: its `main()` returns what the code reads of the array after the write, once
as written and once with the sharing call replaced by `torch.tensor` (a copy). When the two differ, the write
changed what a later reader of the array sees: `check` must report an error on the write. When they agree, it
must report nothing (a warning only where the program says so)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from clirun import cli

pytest.importorskip("torch")
pytest.importorskip("numpy")

# name -> (program, with `SHARE` for `torch.from_numpy`; the severity `check` must give the write, or None)
PROGRAMS = {
    # The array is normalised again on each epoch: the second epoch reads the first one's result.
    "epochs": ("""
        def main():
            frames = np.full((2, 3), 255.0, dtype=np.float32)
            seen = []
            for epoch in range(2):
                x = SHARE(frames)
                x /= 255.0  # write
                seen.append(float(x.sum()))
            return seen
    """, "error"),
    "read_after": ("""
        def main():
            a = np.arange(3.0)
            t = SHARE(a)
            t.mul_(2)  # write
            return a.tolist()
    """, "error"),
    "as_tensor_of_an_array": ("""
        def main():
            a = np.ones((2, 2), dtype=np.float32)
            t = torch.as_tensor(a)
            t[0] = 5.0  # write
            return a.sum().item()
    """, "error"),
    # Nothing reads the array after the write: the shared memory is harmless.
    "not_read_again": ("""
        def main():
            a = np.arange(3.0)
            t = SHARE(a)
            t.add_(1)  # write
            return t.tolist()
    """, None),
    # An out-of-place write leaves the array alone.
    "out_of_place": ("""
        def main():
            a = np.arange(3.0)
            t = SHARE(a)
            t = t * 2
            return a.tolist() + t.tolist()
    """, None),
    # A copy of the array is written, not the array.
    "copied_first": ("""
        def main():
            a = np.arange(3.0)
            t = SHARE(a.copy())
            t.add_(1)  # write
            return a.tolist()
    """, None),
    # The tensor is made from an array by a helper that checks its type (ART's `cast_inputs_to_pt`), from an
    # array made by NumPy arithmetic and `astype`: the write reaches the caller's array, read again afterwards.
    "converted_by_a_helper": ("""
        def to_tensor(x):
            if isinstance(x, np.ndarray):
                return SHARE(x)
            return x


        def main():
            images = (np.ones((2, 3)) * 255).astype(np.float32)
            t = to_tensor(images)
            t /= 255.0  # write
            return images.tolist()
    """, "error"),
    # A helper writes the tensor it made from its argument: the caller's array, read again by one caller, is a
    # temporary for the other.
    "written_by_a_helper": ("""
        def normalize(x):
            t = SHARE(x)
            t /= 255.0  # write
            return t


        def main():
            images = np.full((2, 3), 255.0)
            out = normalize(images)
            return images.tolist() + out.tolist()
    """, "error"),
    "written_by_a_helper_on_a_copy": ("""
        def normalize(x):
            t = SHARE(x)
            t /= 255.0  # write
            return t


        def main():
            images = np.full((2, 3), 255.0)
            out = normalize(images.copy())
            return images.tolist() + out.tolist()
    """, None),
    # A replay buffer kept on the instance: whether it is read again is not visible here.
    "attribute": ("""
        class Buffer:
            def __init__(self):
                self.obs = np.full((4, 3), 255.0, dtype=np.float32)

            def sample(self):
                batch = SHARE(self.obs[0:2])
                batch /= 255.0  # write
                return batch


        def main():
            buffer = Buffer()
            first = float(buffer.sample().sum())
            return [first, float(buffer.sample().sum())]
    """, "warning"),
}


def _source(name: str) -> str:
    return ("import numpy as np\nimport torch\n\n\n" + textwrap.dedent(PROGRAMS[name][0]).strip("\n")
            .replace("SHARE", "torch.from_numpy") + "\n")


def _result(source: str, copy: bool = False) -> object:
    """What `main()` returns, as written or (`copy`) with each sharing call replaced by `torch.tensor`."""
    if copy:
        source = source.replace("torch.from_numpy(", "torch.tensor(").replace("torch.as_tensor(", "torch.tensor(")
    scope = {"__name__": "program"}
    exec(compile(source, "<program>", "exec"), scope)
    return scope["main"]()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_shared_array_write(name: str, tmp_path: Path) -> None:
    source = _source(name)
    changed = _result(source) != _result(source, copy=True)
    expected = PROGRAMS[name][1]
    assert changed is (expected is not None), f"{name}: the label is not what running it shows"
    (tmp_path / "program.py").write_text(source, encoding="utf-8")
    proc = cli("check", "--no-cache", "--format", "json", "program.py", cwd=tmp_path)
    write_line = next((i for i, line in enumerate(source.splitlines(), 1) if line.endswith("# write")), 0)
    found = [(d["line"], d["code"], d["severity"]) for d in json.loads(proc.stdout)["diagnostics"]
             if d["severity"] in ("error", "warning")]
    assert found == ([(write_line, "FIP105", expected)] if expected else []), found


def test_fix_copies_the_array_where_the_tensor_is_made(tmp_path: Path) -> None:
    """The unsafe fix clones at the sharing call; the fixed program leaves the array alone (it reads as the copy
    does), and a second `fix` changes nothing."""
    source = _source("epochs")
    target = tmp_path / "program.py"
    target.write_text(source, encoding="utf-8")
    assert cli("fix", "--apply", "program.py", cwd=tmp_path).returncode in (0, 1)
    assert target.read_text(encoding="utf-8") == source, "the fix is unsafe: not applied without --unsafe-fixes"
    cli("fix", "--apply", "--unsafe-fixes", "program.py", cwd=tmp_path)
    fixed = target.read_text(encoding="utf-8")
    assert "x = torch.from_numpy(frames).clone()" in fixed
    assert _result(fixed) == _result(source, copy=True)
    cli("fix", "--apply", "--unsafe-fixes", "program.py", cwd=tmp_path)
    assert target.read_text(encoding="utf-8") == fixed
