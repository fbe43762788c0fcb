"""Settings for `fixinplace check` and `fix`: defaults, `[tool.fixinplace]` in `pyproject.toml`, then command-line flags.

Configuration keys (kebab-case, as in the `[tool.fixinplace]` table; `snake_case` spellings are accepted too):

    select = ["FIP1"]             # rule-code prefixes to report ("ALL" = every rule); default: all rules
    ignore = ["FIP104"]           # rule-code prefixes not to report
    severity = "warning"          # lowest severity reported: "info" | "warning" | "error"
    exclude = [...]               # globs; REPLACES the default exclusions (prefer extend-exclude)
    extend-exclude = ["tests/*"]  # globs excluded on top of `exclude`
    respect-gitignore = true      # skip what `.gitignore` files ignore
    max-file-size = 5242880       # bytes; larger files are reported as errors, not analysed
    jobs = 0                      # worker processes for `check`; 0 = one per CPU
    unsafe-fixes = false          # `fix` also applies unsafe fixes (as `--unsafe-fixes`); `check --format json`,
                                  # the language server and `trace` then show those fixes
    fix-style = "readable"        # subscript rewrites: "readable" (masked_fill, else a clone) or "functional"
                                  # (select_scatter, slice_scatter, index_put, torch.where: no in-place op left)
    cache = true                  # `check` skips unchanged files with a cache (`--no-cache` for one run)
    cache-dir = ".fixinplace_cache"  # the cache folder, relative to the project root (the config's folder)
    [tool.fixinplace.verify]      # for `fixinplace verify` / `fix --verify` (see fixinplace.verify.declare)
    inputs = { "Net.forward" = "make_inputs", "pkg/m.py::f" = "tests.factories:f_inputs" }

An unknown key, a value of the wrong type or an unknown rule selector raises `ConfigError` with a one-line message
that names the file and the key.
"""

from __future__ import annotations

import os
import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Sequence

from fixinplace.diagnostics import Severity

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: Folder and file names skipped while walking directories (globs matched against each entry's name).
#: Besides these, any folder that holds a `pyvenv.cfg` (a virtual environment, whatever its name, e.g. `env/`)
#: is skipped.
DEFAULT_EXCLUDE: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".fixinplace_cache",
    ".git",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pytest_cache",
    ".ruff_cache",
    ".svn",
    ".tox",
    ".venv",
    "__pycache__",
    "__pypackages__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
    "*.egg-info",
)

DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024  # 5 MiB

_SELECTOR = re.compile(r"^(ALL|FIP[0-9]{0,3})$")


class ConfigError(Exception):
    """A configuration or command-line setting that cannot be used; the message is one line."""


@dataclass(frozen=True)
class Settings:
    """Everything `check` and `fix` need to know besides the paths. Build with `load_settings(...).override(...)`."""

    select: tuple[str, ...] = ()  # empty: every rule
    ignore: tuple[str, ...] = ()
    severity: Severity = Severity.WARNING  # threshold: lower severities are hidden
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    jobs: int = 0  # 0: one worker per CPU
    unsafe_fixes: bool = False  # `fix` applies unsafe fixes too
    fix_style: str = "readable"  # readable | functional (see FIX_STYLES)
    cache: bool = True  # `check` reads and writes `fixinplace.cache`
    cache_dir: str = ".fixinplace_cache"  # relative to project_root
    verify_inputs: tuple[tuple[str, str], ...] = ()  # [tool.fixinplace.verify] inputs: (function, factory)
    # Where relative exclude globs are anchored: the folder of the config file, else the working directory.
    project_root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None

    @property
    def all_excludes(self) -> tuple[str, ...]:
        """`exclude` followed by `extend-exclude`."""
        return self.exclude + self.extend_exclude

    def override(
        self,
        *,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        severity: Severity | str | None = None,
        extend_exclude: Sequence[str] | None = None,
        jobs: int | None = None,
        max_file_size: int | None = None,
        unsafe_fixes: bool | None = None,
        fix_style: str | None = None,
        cache: bool | None = None,
    ) -> "Settings":
        """Apply command-line flags.

        Like ruff, a command-line `--select` starts the rule selection afresh (the config's `select` and `ignore`
        no longer apply) and `--ignore` is applied after it; `--exclude` globs are added to the configured ones.
        """
        changes: dict[str, Any] = {}
        if select:
            changes["select"] = parse_selectors(select, "--select")
            changes["ignore"] = ()
        if ignore:
            changes["ignore"] = changes.get("ignore", self.ignore) + parse_selectors(ignore, "--ignore")
        if severity is not None:
            changes["severity"] = _parse_severity(severity, "--severity")
        if extend_exclude:
            changes["extend_exclude"] = self.extend_exclude + tuple(extend_exclude)
        if jobs is not None:
            if jobs < 0:
                raise ConfigError("--jobs must be 0 (one per CPU) or a positive number")
            changes["jobs"] = jobs
        if max_file_size is not None:
            changes["max_file_size"] = max_file_size
        if unsafe_fixes is not None:
            changes["unsafe_fixes"] = unsafe_fixes
        if fix_style is not None:
            changes["fix_style"] = _parse_fix_style(fix_style, "--fix-style")
        if cache is not None:
            changes["cache"] = cache
        return replace(self, **changes)

    def worker_count(self) -> int:
        """How many processes `check` may use: `jobs`, else every CPU this process may run on."""
        if self.jobs > 0:
            return self.jobs
        try:
            return len(os.sched_getaffinity(0)) or 1  # honours taskset/cgroup CPU sets (CI containers)
        except (AttributeError, OSError):  # not on Linux
            return os.cpu_count() or 1


def _known_codes() -> tuple[str, ...]:
    from fixinplace.rules import RULES

    return tuple(rule.code for rule in RULES)


def parse_selectors(values: Iterable[str], where: str) -> tuple[str, ...]:
    """Split comma-separated rule selectors, upper-case them and check that each selects at least one rule."""
    out: list[str] = []
    codes = _known_codes()
    for value in values:
        for part in str(value).split(","):
            sel = part.strip().upper()
            if not sel:
                continue
            if not _SELECTOR.match(sel) or (sel != "ALL" and not any(c.startswith(sel) for c in codes)):
                raise ConfigError(
                    f"{where}: unknown rule selector {part.strip()!r} (known codes: {', '.join(codes)}; "
                    "a prefix such as FIP1 selects FIP100-FIP199, ALL selects every rule)"
                )
            out.append(sel)
    return tuple(out)


def _parse_severity(value: Any, where: str) -> Severity:
    try:
        return Severity(str(value.value if isinstance(value, Severity) else value).lower())
    except ValueError:
        raise ConfigError(f"{where}: severity must be one of info, warning, error (got {value!r})") from None


# key -> (Settings field, kind)
_KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "codes"),
    "ignore": ("ignore", "codes"),
    "severity": ("severity", "severity"),
    "exclude": ("exclude", "globs"),
    "extend-exclude": ("extend_exclude", "globs"),
    "respect-gitignore": ("respect_gitignore", "bool"),
    "max-file-size": ("max_file_size", "size"),
    "jobs": ("jobs", "count"),
    "unsafe-fixes": ("unsafe_fixes", "bool"),
    "fix-style": ("fix_style", "fix-style"),
    "cache": ("cache", "bool"),
    "cache-dir": ("cache_dir", "str"),
    "verify": ("verify_inputs", "verify"),
}


#: The forms `fix` writes subscript rewrites in: `readable` takes `masked_fill` for a boolean mask and a number,
#: and a clone before the write for the rest; `functional` writes every one out of place (for torch.func and
#: torch.compile users).
FIX_STYLES = ("readable", "functional")


def _parse_fix_style(value: Any, where: str) -> str:
    if value not in FIX_STYLES:
        raise ConfigError(f"{where} must be one of: {', '.join(repr(s) for s in FIX_STYLES)} (got {value!r})")
    return value


def _verify_inputs(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    """The `[tool.fixinplace.verify]` table: only `inputs`, a table of strings (function -> input factory)."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = [k for k in value if k != "inputs"]
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]!r} (known keys: inputs)")
    inputs = value.get("inputs", {})
    if not isinstance(inputs, dict) or not all(isinstance(k, str) and isinstance(v, str) and v.strip()
                                               for k, v in inputs.items()):
        raise ConfigError(f"{where}.inputs must be a table of strings (function = \"factory\")")
    return tuple((k.strip(), v.strip()) for k, v in inputs.items())


def settings_from_table(table: dict[str, Any], source: str, project_root: Path) -> Settings:
    """Settings from a `[tool.fixinplace]` table; `source` names the file in error messages."""
    changes: dict[str, Any] = {}
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in _KEYS:
            raise ConfigError(
                f"{source}: unknown key {raw_key!r} in [tool.fixinplace] (known keys: {', '.join(sorted(_KEYS))})"
            )
        attr, kind = _KEYS[key]
        where = f"{source}: [tool.fixinplace] {raw_key}"
        if kind in ("codes", "globs"):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{where} must be a list of strings")
            changes[attr] = parse_selectors(value, where) if kind == "codes" else tuple(value)
        elif kind == "severity":
            changes[attr] = _parse_severity(value, where)
        elif kind == "verify":
            changes[attr] = _verify_inputs(value, where)
        elif kind == "fix-style":
            changes[attr] = _parse_fix_style(value, where)
        elif kind == "bool":
            if not isinstance(value, bool):
                raise ConfigError(f"{where} must be true or false")
            changes[attr] = value
        elif kind in ("size", "count"):
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if kind == "size" else 0):
                raise ConfigError(f"{where} must be a {'positive' if kind == 'size' else 'non-negative'} integer")
            changes[attr] = value
        else:  # str
            if not isinstance(value, str):
                raise ConfigError(f"{where} must be a string")
            changes[attr] = value
    return Settings(project_root=project_root, **changes)


def read_pyproject(path: Path) -> dict[str, Any] | None:
    """The `[tool.fixinplace]` table of a pyproject.toml, or None when it has none."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None
    tool = data.get("tool")
    if not isinstance(tool, dict) or "fixinplace" not in tool:
        return None
    table = tool["fixinplace"]
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.fixinplace] must be a table")
    return table


def find_config(start: Path) -> Path | None:
    """The nearest `pyproject.toml` with a `[tool.fixinplace]` table, searching `start` and its parents."""
    start = start.absolute()
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if os.path.isfile(candidate) and read_pyproject(candidate) is not None:
            return candidate
    return None


def common_folder(paths: Sequence[str], cwd: Path) -> Path:
    """The deepest folder that contains every given path (the working directory when there are none)."""
    folders = []
    for p in paths:
        ap = Path(os.path.normpath(cwd / p))
        folders.append(ap if os.path.isdir(ap) else ap.parent)  # False, not an error, when it cannot be stat-ed
    if not folders:
        return cwd
    try:
        return Path(os.path.commonpath([str(f) for f in folders]))
    except ValueError:  # different drives
        return cwd


def load_settings(config: str | Path | None = None, paths: Sequence[str] = (), cwd: Path | None = None) -> Settings:
    """Settings from an explicit config file, or from the nearest `pyproject.toml` above the checked paths."""
    cwd = (cwd or Path.cwd()).absolute()
    if config is not None:
        path = Path(config)
        if not path.is_absolute():
            path = cwd / path
        if not path.is_file():
            raise ConfigError(f"{config}: config file not found")
        table = read_pyproject(path) or {}
        return replace(settings_from_table(table, str(config), path.parent), config_file=path)
    found = find_config(common_folder(paths, cwd))
    if found is None:
        return Settings(project_root=cwd)
    try:
        shown = str(found.relative_to(cwd))
    except ValueError:
        shown = str(found)
    table = read_pyproject(found) or {}
    return replace(settings_from_table(table, shown, found.parent), config_file=found)
