"""`[tool.fixinplace]` in pyproject.toml: discovery of the file, keys, validation, command-line overrides."""

from __future__ import annotations

from pathlib import Path

import pytest

from fixinplace.diagnostics import Severity
from fixinplace.settings import DEFAULT_EXCLUDE, ConfigError, Settings, load_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_defaults_without_config(tmp_path):
    s = load_settings(None, ["."], cwd=tmp_path)
    assert s == Settings(project_root=tmp_path)
    assert s.severity is Severity.WARNING and s.select == () and s.exclude == DEFAULT_EXCLUDE
    assert s.respect_gitignore and s.max_file_size == 5 * 1024 * 1024 and s.config_file is None


def test_every_key(tmp_path):
    write(
        tmp_path / "pyproject.toml",
        """
[project]
name = "x"

[tool.fixinplace]
select = ["FIP1", "fip900"]
ignore = ["FIP104"]
severity = "info"
exclude = ["a"]
extend-exclude = ["b/*"]
respect-gitignore = false
max-file-size = 1000
jobs = 3
unsafe-fixes = true
cache = true
cache-dir = ".c"
""",
    )
    s = load_settings(None, ["."], cwd=tmp_path)
    assert s.select == ("FIP1", "FIP900") and s.ignore == ("FIP104",)
    assert s.severity is Severity.INFO
    assert s.exclude == ("a",) and s.extend_exclude == ("b/*",) and s.all_excludes == ("a", "b/*")
    assert not s.respect_gitignore and s.max_file_size == 1000 and s.jobs == 3 and s.worker_count() == 3
    assert s.unsafe_fixes and s.cache and s.cache_dir == ".c"
    assert s.config_file == tmp_path / "pyproject.toml" and s.project_root == tmp_path


def test_snake_case_keys_are_accepted(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.fixinplace]\nextend_exclude = ['x']\n")
    assert load_settings(None, ["."], cwd=tmp_path).extend_exclude == ("x",)


def test_nearest_pyproject_with_a_fixinplace_table_is_used(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.fixinplace]\nseverity = 'error'\n")
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'no-table'\n")
    write(tmp_path / "sub" / "pkg" / "a.py", "x = 1\n")
    s = load_settings(None, ["sub/pkg"], cwd=tmp_path)
    assert s.severity is Severity.ERROR and s.config_file == tmp_path / "pyproject.toml"


def test_config_is_found_from_the_checked_paths_not_only_cwd(tmp_path):
    write(tmp_path / "proj" / "pyproject.toml", "[tool.fixinplace]\nignore = ['FIP104']\n")
    write(tmp_path / "proj" / "src" / "a.py", "x = 1\n")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    s = load_settings(None, [str(tmp_path / "proj" / "src")], cwd=elsewhere)
    assert s.ignore == ("FIP104",) and s.project_root == tmp_path / "proj"


def test_explicit_config_file(tmp_path):
    cfg = write(tmp_path / "conf" / "custom.toml", "[tool.fixinplace]\nseverity = 'info'\n")
    s = load_settings("conf/custom.toml", ["."], cwd=tmp_path)
    assert s.severity is Severity.INFO and s.project_root == tmp_path / "conf" and s.config_file == cfg


def test_explicit_config_missing(tmp_path):
    with pytest.raises(ConfigError, match=r"^nope.toml: config file not found$"):
        load_settings("nope.toml", ["."], cwd=tmp_path)


def test_unknown_key_names_file_and_key(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.fixinplace]\nselct = ['FIP1']\n")
    with pytest.raises(ConfigError) as info:
        load_settings(None, ["."], cwd=tmp_path)
    message = str(info.value)
    assert message.startswith("pyproject.toml: unknown key 'selct' in [tool.fixinplace]")
    assert "\n" not in message


@pytest.mark.parametrize(
    "body, fragment",
    [
        ("severity = 'fatal'", "severity must be one of info, warning, error"),
        ("select = 'FIP1'\nignore = [1]", "ignore must be a list of strings"),
        ("select = ['E501']", "unknown rule selector 'E501'"),
        ("select = ['FIP7']", "unknown rule selector 'FIP7'"),
        ("respect-gitignore = 'yes'", "respect-gitignore must be true or false"),
        ("max-file-size = 0", "max-file-size must be a positive integer"),
        ("jobs = -1", "jobs must be a non-negative integer"),
        ("cache-dir = 3", "cache-dir must be a string"),
    ],
)
def test_bad_values(tmp_path, body, fragment):
    write(tmp_path / "pyproject.toml", f"[tool.fixinplace]\n{body}\n")
    with pytest.raises(ConfigError, match="pyproject.toml") as info:
        load_settings(None, ["."], cwd=tmp_path)
    assert fragment in str(info.value)


def test_invalid_toml(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.fixinplace\n")
    with pytest.raises(ConfigError, match=r"^.*pyproject.toml: invalid TOML: "):
        load_settings(None, ["."], cwd=tmp_path)


def test_overrides():
    base = Settings(select=("FIP1",), ignore=("FIP104",), extend_exclude=("a",))
    s = base.override(select=["fip101,FIP102"], severity="error", extend_exclude=["b"], jobs=1)
    assert s.select == ("FIP101", "FIP102") and s.ignore == () and s.severity is Severity.ERROR
    assert s.extend_exclude == ("a", "b") and s.jobs == 1
    s = base.override(ignore=["FIP103"])
    assert s.select == ("FIP1",) and s.ignore == ("FIP104", "FIP103")
    with pytest.raises(ConfigError, match="--select: unknown rule selector 'XYZ'"):
        base.override(select=["XYZ"])
    with pytest.raises(ConfigError, match="--severity"):
        base.override(severity="loud")
