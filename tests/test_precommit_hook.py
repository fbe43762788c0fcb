"""`.pre-commit-hooks.yaml`: it parses, and its hook's entry is the real `check` command with files appended."""

from __future__ import annotations

import shlex
import sys

import yaml
from clirun import REPO, cli

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HAZARD = "import torch\nu = torch.ones(3, requires_grad=True)\nuexp = u.exp()\nuexp[0] = 666\nuexp.sum().backward()\n"


def _hook() -> dict:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert isinstance(hooks, list)
    by_id = {h["id"]: h for h in hooks}
    return by_id["fixinplace"]


def test_hook_declares_a_python_hook_for_python_files_and_notebooks():
    hook = _hook()
    assert hook["language"] == "python" and hook["types_or"] == ["python", "jupyter"]
    assert {"id", "name", "entry", "language"} <= set(hook)


def test_hook_entry_is_the_installed_check_command(tmp_path):
    program, *args = shlex.split(_hook()["entry"])
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts[program] == "fixinplace.launch:main"  # pre-commit installs the package, then runs this script
    (tmp_path / "bad.py").write_text(HAZARD)
    (tmp_path / "good.py").write_text("import torch\nx = torch.ones(3)\nx.add_(1)\n")
    # pre-commit appends the staged files to the entry
    assert cli(*args, "bad.py", "good.py", cwd=tmp_path).returncode == 1
    ok = cli(*args, "good.py", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
