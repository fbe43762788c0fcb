"""Settings for `fixinplace check` and `fix`: defaults, the configuration file, then command-line flags.

The configuration file is found as Ruff finds `ruff.toml`: in the folder of the checked paths or the nearest
parent, the first of `.fixinplace.toml`, `fixinplace.toml` (the keys at the top level, no table) and a
`pyproject.toml` that has a `[tool.fixinplace]` table; `--config FILE` names one (a `pyproject.toml` is read
for its `[tool.fixinplace]` table, any other file for its top level).

Configuration keys (kebab-case, as in the `[tool.fixinplace]` table; `snake_case` spellings are accepted too):

    select = ["FIP1"]             # rule-code prefixes to report ("ALL" = every rule); default: all rules
    extend-select = ["FIP9"]      # prefixes reported on top of `select`
    ignore = ["FIP104"]           # rule-code prefixes not to report
    extend-ignore = ["FIP103"]    # prefixes not reported, on top of `ignore`
    per-file-ignores = { "tests/*" = ["FIP102"] }  # glob -> prefixes not reported in the matching files
                                  # (a glob without `/` matches file names, one with `/` paths relative to the
                                  # config's folder); `extend-per-file-ignores` adds to them
    severity = "warning"          # lowest severity reported: "info" | "warning" | "error"
    include = ["*.py", "*.ipynb"] # globs of the files a folder's walk picks up; REPLACES the default
    extend-include = ["*.pyw"]    # globs picked up on top of `include` (files named on the command line are
                                  # always checked; `*.ipynb` files are read as notebooks, the rest as Python)
    exclude = [...]               # globs; REPLACES the default exclusions (prefer extend-exclude)
    extend-exclude = ["tests/*"]  # globs excluded on top of `exclude`
    respect-gitignore = true      # skip what `.gitignore` files ignore
    max-file-size = 5242880       # bytes; larger files are reported as errors, not analysed
    jobs = 0                      # worker processes for `check`; 0 = one per CPU
    unsafe-fixes = false          # `fix` also applies unsafe fixes (as `--unsafe-fixes`); `check --format json`,
                                  # the language server and `trace` then show those fixes
    fix-style = "readable"        # subscript rewrites: "readable" (masked_fill, else a clone) or "functional"
                                  # (select_scatter, slice_scatter, index_put, torch.where: no in-place op left)
    device = "any"                # where the code trains: "cpu", "cuda" or "any"; a hazard that exists on one
                                  # device only (cuDNN's LSTM saves its output) is reported for that device
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
from fixinplace.globs import ExcludeGlob

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: The files a folder's walk picks up (globs, as in `exclude`): Python files and Jupyter notebooks.
DEFAULT_INCLUDE: tuple[str, ...] = ("*.py", "*.ipynb")

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
    include: tuple[str, ...] = DEFAULT_INCLUDE
    extend_include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    extend_exclude: tuple[str, ...] = ()
    respect_gitignore: bool = True
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    jobs: int = 0  # 0: one worker per CPU
    unsafe_fixes: bool = False  # `fix` applies unsafe fixes too
    fix_style: str = "readable"  # readable | functional (see FIX_STYLES)
    device: str = "any"  # cpu | cuda | any (see DEVICES): the hazards of which device are reported
    cache: bool = True  # `check` reads and writes `fixinplace.cache`
    cache_dir: str = ".fixinplace_cache"  # relative to project_root
    verify_inputs: tuple[tuple[str, str], ...] = ()  # [tool.fixinplace.verify] inputs: (function, factory)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, prefixes not reported there)
    # Where relative exclude globs are anchored: the folder of the config file, else the working directory.
    project_root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None

    @property
    def all_includes(self) -> tuple[str, ...]:
        """`include` followed by `extend-include`."""
        return self.include + self.extend_include

    @property
    def all_excludes(self) -> tuple[str, ...]:
        """`exclude` followed by `extend-exclude`."""
        return self.exclude + self.extend_exclude

    def override(
        self,
        *,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        extend_select: Sequence[str] | None = None,
        extend_ignore: Sequence[str] | None = None,
        per_file_ignores: Sequence[str] | None = None,
        severity: Severity | str | None = None,
        extend_exclude: Sequence[str] | None = None,
        jobs: int | None = None,
        max_file_size: int | None = None,
        unsafe_fixes: bool | None = None,
        fix_style: str | None = None,
        device: str | None = None,
        cache: bool | None = None,
    ) -> "Settings":
        """Apply command-line flags.

        Like ruff, a command-line `--select` starts the rule selection afresh (the config's `select` and `ignore`
        no longer apply) and `--ignore` is applied after it; `--extend-select` and `--extend-ignore` add to the
        selection in force; `--per-file-ignores GLOB:CODES` adds to the configured per-file ignores; `--exclude`
        globs are added to the configured ones.
        """
        changes: dict[str, Any] = {}
        if select:
            changes["select"] = parse_selectors(select, "--select")
            changes["ignore"] = ()
        if ignore:
            changes["ignore"] = changes.get("ignore", self.ignore) + parse_selectors(ignore, "--ignore")
        if extend_select:
            changes["select"] = extended_selection(changes.get("select", self.select),
                                                   parse_selectors(extend_select, "--extend-select"))
        if extend_ignore:
            changes["ignore"] = changes.get("ignore", self.ignore) + parse_selectors(extend_ignore, "--extend-ignore")
        if per_file_ignores:
            pairs = []
            for item in per_file_ignores:
                glob, sep, codes = str(item).rpartition(":")
                if not sep or not glob.strip():
                    raise ConfigError(f"--per-file-ignores: expected GLOB:CODES, got {item!r}")
                pairs.append((glob.strip(), parse_selectors([codes], "--per-file-ignores")))
            changes["per_file_ignores"] = self.per_file_ignores + tuple(pairs)
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
        if device is not None:
            changes["device"] = _parse_device(device, "--device")
        if cache is not None:
            changes["cache"] = cache
        return replace(self, **changes)

    def ignored_in(self, path: str) -> tuple[str, ...]:
        """The rule prefixes `per-file-ignores` turns off in `path` (relative to the working directory, or
        absolute). A glob without `/` matches the file's name, one with `/` its path relative to the project root
        (or its absolute path); a glob that starts with `!` applies to the files it does not match."""
        if not self.per_file_ignores:
            return ()
        absolute = os.path.normpath(os.path.abspath(path)).replace(os.sep, "/")
        root = os.path.normpath(str(self.project_root.absolute())).replace(os.sep, "/").rstrip("/") + "/"
        relative = absolute[len(root):] if absolute.startswith(root) else None
        name = absolute.rsplit("/", 1)[-1]
        out: list[str] = []
        for glob, codes in self.per_file_ignores:
            negated = glob.startswith("!")
            matched = ExcludeGlob.parse(glob[1:] if negated else glob).matches(absolute, relative, name, False)
            if matched != negated:
                out.extend(codes)
        return tuple(out)

    def worker_count(self) -> int:
        """How many processes `check` may use: `jobs`, else every CPU this process may run on."""
        if self.jobs > 0:
            return self.jobs
        try:
            return len(os.sched_getaffinity(0)) or 1  # honours taskset/cgroup CPU sets (CI containers)
        except (AttributeError, OSError):  # not on Linux
            return os.cpu_count() or 1


def extended_selection(select: tuple[str, ...], extra: tuple[str, ...]) -> tuple[str, ...]:
    """`select` with `extra` added (an empty `select` means every rule, so it becomes `ALL` plus `extra`, which
    keeps `extra` more specific than a broader `ignore`)."""
    return (select or ("ALL",)) + extra


def _known_codes() -> tuple[str, ...]:
    from fixinplace.rules import RULES  # deferred: the rule table, loaded only when a code selector is parsed

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
    "extend-select": ("extend_select", "codes"),
    "ignore": ("ignore", "codes"),
    "extend-ignore": ("extend_ignore", "codes"),
    "per-file-ignores": ("per_file_ignores", "per-file"),
    "extend-per-file-ignores": ("extend_per_file_ignores", "per-file"),
    "severity": ("severity", "severity"),
    "include": ("include", "globs"),
    "extend-include": ("extend_include", "globs"),
    "exclude": ("exclude", "globs"),
    "extend-exclude": ("extend_exclude", "globs"),
    "respect-gitignore": ("respect_gitignore", "bool"),
    "max-file-size": ("max_file_size", "size"),
    "jobs": ("jobs", "count"),
    "unsafe-fixes": ("unsafe_fixes", "bool"),
    "fix-style": ("fix_style", "fix-style"),
    "device": ("device", "device"),
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


#: Where the checked code trains: a hazard that exists on one device only (what a cuDNN kernel saves and the CPU's
#: does not, `fixinplace/data/saved_tensors.cuda.json`) is reported for that device and for `any`.
DEVICES = ("any", "cpu", "cuda")


def _parse_device(value: Any, where: str) -> str:
    if value not in DEVICES:
        raise ConfigError(f"{where} must be one of: {', '.join(repr(s) for s in DEVICES)} (got {value!r})")
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


def _per_file(value: Any, where: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """A `per-file-ignores` table: glob -> list of rule selectors."""
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of glob = [codes]")
    out = []
    for glob, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{where}: {glob!r} must be a list of rule codes")
        out.append((glob, parse_selectors(codes, f"{where}: {glob!r}")))
    return tuple(out)


def settings_from_table(table: dict[str, Any], source: str, project_root: Path,
                        section: str = "[tool.fixinplace]") -> Settings:
    """Settings from a `[tool.fixinplace]` table (or a `fixinplace.toml`'s top level, `section=""`); `source`
    names the file in error messages."""
    changes: dict[str, Any] = {}
    in_section = f" in {section}" if section else ""
    for raw_key, value in table.items():
        key = raw_key.replace("_", "-")
        if key not in _KEYS:
            raise ConfigError(
                f"{source}: unknown key {raw_key!r}{in_section} (known keys: {', '.join(sorted(_KEYS))})"
            )
        attr, kind = _KEYS[key]
        where = f"{source}: {section + ' ' if section else ''}{raw_key}"
        if kind == "per-file":
            changes[attr] = _per_file(value, where)
        elif kind in ("codes", "globs"):
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
        elif kind == "device":
            changes[attr] = _parse_device(value, where)
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
    extend_select = changes.pop("extend_select", ())
    if extend_select:
        changes["select"] = extended_selection(changes.get("select", ()), extend_select)
    changes["ignore"] = changes.get("ignore", ()) + changes.pop("extend_ignore", ())
    changes["per_file_ignores"] = changes.get("per_file_ignores", ()) + changes.pop("extend_per_file_ignores", ())
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


#: The configuration files of one folder, in order of precedence (as Ruff: `.ruff.toml` > `ruff.toml` >
#: `pyproject.toml`).
CONFIG_NAMES = (".fixinplace.toml", "fixinplace.toml", "pyproject.toml")


def read_toml(path: Path) -> dict[str, Any]:
    """A `fixinplace.toml`'s keys (the whole file)."""
    try:
        with open(path, "rb") as f:
            return tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: invalid TOML: {e}") from None


def find_config(start: Path) -> Path | None:
    """The nearest configuration file, searching `start` and its parents: `.fixinplace.toml`, `fixinplace.toml`,
    or a `pyproject.toml` with a `[tool.fixinplace]` table (the first of these in the nearest folder)."""
    start = start.absolute()
    for folder in (start, *start.parents):
        for name in CONFIG_NAMES:
            candidate = folder / name
            if not os.path.isfile(candidate):
                continue
            if name != "pyproject.toml" or read_pyproject(candidate) is not None:
                return candidate
    return None


def _read_config(path: Path, shown: str, explicit: bool = False) -> Settings:
    """The settings of one configuration file: a `pyproject.toml`'s `[tool.fixinplace]` table, else the file's
    top level (an explicit `--config` file with a `[tool.fixinplace]` table is read as a pyproject.toml)."""
    if path.name == "pyproject.toml":
        return settings_from_table(read_pyproject(path) or {}, shown, path.parent)
    data = read_toml(path)
    tool = data.get("tool")
    if explicit and isinstance(tool, dict) and "fixinplace" in tool:
        table = read_pyproject(path)
        return settings_from_table(table or {}, shown, path.parent)
    return settings_from_table(data, shown, path.parent, section="")


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
    """Settings from an explicit config file, or from the nearest configuration file above the checked paths
    (see `find_config`)."""
    cwd = (cwd or Path.cwd()).absolute()
    if config is not None:
        path = Path(config)
        if not path.is_absolute():
            path = cwd / path
        if not path.is_file():
            raise ConfigError(f"{config}: config file not found")
        return replace(_read_config(path, str(config), explicit=True), config_file=path)
    found = find_config(common_folder(paths, cwd))
    if found is None:
        return Settings(project_root=cwd)
    try:
        shown = str(found.relative_to(cwd))
    except ValueError:
        shown = str(found)
    return replace(_read_config(found, shown), config_file=found)
