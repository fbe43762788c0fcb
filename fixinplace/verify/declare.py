"""Input factories declared in `[tool.fixinplace.verify]` of the nearest `pyproject.toml` (parent process).

    [tool.fixinplace.verify.inputs]
    "Net.forward" = "make_net_inputs"                     # any file's Net.forward; a factory of that same file
    "models/attn.py::Attention.forward" = "tests.factories:attention_inputs"   # one file; an importable factory

A key is a function's qualified name, optionally prefixed by `PATH::` (relative to the pyproject's folder, `/`
separators) to name one file; a key with a path wins over a bare one. A value is `NAME` (a zero-argument function
of the verified file) or `MODULE:NAME` (imported in the child process, with the pyproject's folder and the file's
folder on `sys.path`). The factory returns the function's arguments as a tuple or list (for a method, the
instance first), as with `--inputs`.
"""

from __future__ import annotations

from pathlib import Path

from fixinplace.settings import ConfigError, find_config, read_pyproject, settings_from_table


def declared_inputs(path: str) -> tuple[dict[str, str], str, str]:
    """({function: factory} that apply to `path`, the pyproject's folder or "", a config error or "")."""
    try:
        config = find_config(Path(path).absolute().parent)
        if config is None:
            return {}, "", ""
        table = read_pyproject(config) or {}
        pairs = settings_from_table(table, str(config), config.parent).verify_inputs
    except ConfigError as e:
        return {}, "", str(e)
    root = config.parent
    try:
        relative = Path(path).absolute().relative_to(root).as_posix()
    except ValueError:
        relative = ""
    out: dict[str, str] = {}
    for key, factory in pairs:
        if "::" not in key:
            out.setdefault(key, factory)
    for key, factory in pairs:
        if "::" in key:
            file, _, function = key.partition("::")
            if relative and file.strip().removeprefix("./") == relative:
                out[function.strip()] = factory
    return out, str(root), ""
