"""File discovery: default exclusions, venvs, .gitignore, exclude globs, explicit files, bad paths."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from fixinplace.discovery import discover, glob_to_regex, parse_gitignore
from fixinplace.settings import Settings


def touch(root: Path, *names: str, text: str = "x = 1\n") -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def found(tmp_path: Path, paths=(".",), **settings) -> tuple[list[str], list[tuple[str, str]]]:
    s = Settings(project_root=tmp_path, **settings)
    result = discover(list(paths), s, cwd=tmp_path)
    return result.files, [(e.path, e.message) for e in result.errors]


def test_walks_python_files_sorted_and_skips_default_folders(tmp_path):
    touch(
        tmp_path,
        "b.py",
        "a.py",
        "pkg/z.py",
        "pkg/sub/m.py",
        "pkg/notes.txt",
        "pkg/stub.pyi",
        ".git/hooks/x.py",
        ".venv/lib/site.py",
        "venv/lib/site.py",
        "__pycache__/c.py",
        "build/lib/x.py",
        "dist/x.py",
        ".tox/py/x.py",
        ".nox/x.py",
        ".mypy_cache/x.py",
        ".pytest_cache/x.py",
        ".fixinplace_cache/x.py",
        "node_modules/x.py",
        "lib/site-packages/x.py",
        "thing.egg-info/x.py",
        ".hg/x.py",
        ".svn/x.py",
    )
    files, errors = found(tmp_path)
    assert errors == []
    assert files == ["a.py", "b.py", "pkg/sub/m.py", "pkg/z.py"]


def test_folder_with_pyvenv_cfg_is_skipped_whatever_its_name(tmp_path):
    touch(tmp_path, "env/lib/x.py", "env/pyvenv.cfg", "myenv/pyvenv.cfg", "myenv/y.py", "envs/real.py", "main.py")
    files, _ = found(tmp_path)
    assert files == ["envs/real.py", "main.py"]


def test_env_folder_without_pyvenv_cfg_is_checked(tmp_path):
    touch(tmp_path, "env/step.py")
    files, errors = found(tmp_path)
    assert files == ["env/step.py"] and errors == []


def test_display_paths_keep_the_given_prefix(tmp_path):
    touch(tmp_path, "src/pkg/a.py")
    files, _ = found(tmp_path, ["src/", "./src/pkg/a.py"])
    assert files == ["src/pkg/a.py"]  # normalised and de-duplicated


def test_explicit_file_is_always_checked(tmp_path):
    touch(tmp_path, "build/gen.py", "script", "notes.txt", "ignored.py")
    (tmp_path / ".gitignore").write_text("ignored.py\n")
    files, errors = found(tmp_path, ["build/gen.py", "script", "ignored.py"], extend_exclude=("script",))
    assert errors == []
    assert files == ["build/gen.py", "ignored.py", "script"]


def test_explicit_folder_is_walked_even_if_its_name_is_excluded(tmp_path):
    touch(tmp_path, "build/gen.py", "build/__pycache__/x.py")
    files, _ = found(tmp_path, ["build"])
    assert files == ["build/gen.py"]


def test_missing_path_and_folder_without_python(tmp_path):
    touch(tmp_path, "empty/readme.txt", "ok.py")
    (tmp_path / "void").mkdir()
    files, errors = found(tmp_path, ["missing.py", "empty", "void", "ok.py"])
    assert files == ["ok.py"]
    assert errors == [
        ("missing.py", "no such file or directory"),
        ("empty", "no Python files found"),
        ("void", "no Python files found"),
    ]


def test_folder_whose_python_is_all_excluded_reports_no_python(tmp_path):
    touch(tmp_path, "proj/.venv/x.py")
    _, errors = found(tmp_path, ["proj"])
    assert errors == [("proj", "no Python files found")]


def test_gitignore_globs_dirs_anchors_and_negation(tmp_path):
    (tmp_path / ".gitignore").write_text(
        "# comment\n\n*_gen.py\ngenerated/\n/top_only.py\ndocs/**/conf.py\nkeep*.py\n!keep_me.py\n"
    )
    touch(
        tmp_path,
        "a.py",
        "pkg/x_gen.py",
        "pkg/generated/y.py",
        "top_only.py",
        "pkg/top_only.py",
        "docs/a/b/conf.py",
        "docs/conf.py",
        "keep_out.py",
        "keep_me.py",
    )
    files, _ = found(tmp_path)
    assert files == ["a.py", "keep_me.py", "pkg/top_only.py"]


def test_nested_gitignore_applies_below_its_folder(tmp_path):
    touch(tmp_path, "a/skip.py", "a/b/skip.py", "c/skip.py")
    (tmp_path / "a" / ".gitignore").write_text("skip.py\n")
    files, _ = found(tmp_path)
    assert files == ["c/skip.py"]


def test_gitignore_of_parent_in_git_work_tree_applies(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("secret.py\n")
    touch(tmp_path, "src/secret.py", "src/public.py")
    files, _ = found(tmp_path, ["src"])
    assert files == ["src/public.py"]


def test_respect_gitignore_off(tmp_path):
    (tmp_path / ".gitignore").write_text("*.py\n")
    touch(tmp_path, "a.py")
    assert found(tmp_path)[0] == []
    assert found(tmp_path, respect_gitignore=False)[0] == ["a.py"]


def test_exclude_and_extend_exclude_globs(tmp_path):
    touch(tmp_path, "a.py", "tests/t.py", "pkg/x_pb2.py", "pkg/deep/gen/z.py", "build/b.py")
    files, _ = found(tmp_path, extend_exclude=("tests/*", "*_pb2.py", "**/gen/"))
    assert files == ["a.py"]
    # `exclude` replaces the defaults: build/ is walked again
    files, _ = found(tmp_path, exclude=("tests",))
    assert files == ["a.py", "build/b.py", "pkg/deep/gen/z.py", "pkg/x_pb2.py"]


def test_exclude_glob_relative_to_project_root(tmp_path):
    touch(tmp_path, "proj/src/a.py", "proj/src/vendored/v.py")
    s = Settings(project_root=tmp_path / "proj", extend_exclude=("src/vendored",))
    result = discover(["proj"], s, cwd=tmp_path)
    assert result.files == ["proj/src/a.py"]


def test_symlink_loop_terminates(tmp_path):
    touch(tmp_path, "pkg/a.py")
    (tmp_path / "pkg" / "loop").symlink_to(tmp_path / "pkg", target_is_directory=True)
    files, errors = found(tmp_path)
    assert files[0] == "pkg/a.py" and errors == []


def test_glob_to_regex():
    assert glob_to_regex("*.py").match("a.py")
    assert not glob_to_regex("*.py").match("d/a.py")
    assert glob_to_regex("**/a.py").match("a.py")
    assert glob_to_regex("**/a.py").match("x/y/a.py")
    assert glob_to_regex("src/**").match("src/x/y.py")
    assert glob_to_regex("[ab].py").match("b.py")
    assert not glob_to_regex("[!ab].py").match("a.py")
    assert glob_to_regex("a?.py").match("ab.py")


def test_parse_gitignore_skips_comments_and_blank_lines():
    rules = parse_gitignore("# c\n\n  \nfoo/\n!bar\n", "/r")
    assert [(r.negate, r.dir_only, r.anchored) for r in rules] == [(False, True, False), (True, False, False)]


def test_default_settings_walk_cwd(tmp_path, monkeypatch):
    touch(tmp_path, "a.py")
    monkeypatch.chdir(tmp_path)
    assert discover(["."], replace(Settings(), project_root=tmp_path)).files == ["a.py"]


def test_include_and_extend_include_choose_the_files_a_walk_picks_up(tmp_path):
    touch(tmp_path, "a.py", "nb.ipynb", "gui.pyw", "bin/train", "bin/notes.txt", "pkg/stub.pyi")
    assert found(tmp_path)[0] == ["a.py", "nb.ipynb"]
    assert found(tmp_path, extend_include=("*.pyw", "bin/*"))[0] == ["a.py", "bin/notes.txt", "bin/train", "gui.pyw",
                                                                     "nb.ipynb"]
    assert found(tmp_path, include=("*.py",))[0] == ["a.py"]
    # an exclusion wins over an inclusion; a file named on the command line is checked whatever its name
    assert found(tmp_path, extend_include=("bin/*",), extend_exclude=("*.txt",))[0] == ["a.py", "bin/train", "nb.ipynb"]
    assert found(tmp_path, ("gui.pyw", "."), include=("*.py",))[0] == ["a.py", "gui.pyw"]


def test_extend_include_is_read_from_the_configuration(tmp_path):
    from fixinplace.settings import ConfigError, load_settings

    touch(tmp_path, "a.py", "scripts/train")
    (tmp_path / "fixinplace.toml").write_text('extend-include = ["scripts/*"]\n')
    settings = load_settings(None, ["."], cwd=tmp_path)
    assert settings.extend_include == ("scripts/*",)
    assert discover(["."], settings, cwd=tmp_path).files == ["a.py", "scripts/train"]
    (tmp_path / "fixinplace.toml").write_text('include = 3\n')
    try:
        load_settings(None, ["."], cwd=tmp_path)
    except ConfigError as e:
        assert str(e).endswith("fixinplace.toml: include must be a list of strings"), e
    else:
        raise AssertionError("a number where a list of globs belongs must be a configuration error")
