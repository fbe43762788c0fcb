"""The engine's own steps: reading and decoding, parse errors, the pre-filter, suppression, selection, reports."""

from __future__ import annotations


import pytest

from fixinplace.diagnostics import Diagnostic, FileError, Severity
from fixinplace.engine import (
    Report,
    SourceError,
    apply_suppressions,
    check_file,
    check_source,
    decode_source,
    is_selected,
    might_write_in_place,
    parse_source,
    parse_suppressions,
    read_source,
    run_check,
    select_diagnostics,
)
from fixinplace.settings import Settings


def diag(line: int, code: str = "FIP101", severity: Severity = Severity.ERROR, end_line: int | None = None) -> Diagnostic:
    return Diagnostic(
        path="m.py",
        line=line,
        column=1,
        end_line=end_line or line,
        end_column=5,
        code=code,
        severity=severity,
        message=f"{code} at {line}",
    )


# --- reading and decoding -----------------------------------------------------------------------------------


def test_utf8_bom_is_stripped(tmp_path):
    p = tmp_path / "bom.py"
    p.write_bytes(b"\xef\xbb\xbfx = '\xc3\xa9'\nx.add_(1)\n")
    text = read_source(str(p))
    assert text == "x = 'é'\nx.add_(1)\n"
    parse_source(text)


def test_pep263_cookie_is_honoured(tmp_path):
    p = tmp_path / "latin.py"
    p.write_bytes(b"# -*- coding: latin-1 -*-\nname = '\xe9t\xe9'\n")
    assert "name = 'été'" in read_source(str(p))


def test_bom_with_utf8_cookie_is_fine():
    assert decode_source(b"\xef\xbb\xbf# coding: utf-8\nx = 1\n") == "# coding: utf-8\nx = 1\n"


@pytest.mark.parametrize(
    "data, expected",
    [
        (b"x = '\xff'\n", "cannot decode as utf-8: invalid byte 0xff at line 1"),
        (b"\n\n\nx = '\xfe'\n", "cannot decode as utf-8: invalid byte 0xfe at line 4"),
        (b"# coding: no-such-codec\nx = 1\n", "cannot decode: unknown encoding: no-such-codec"),
        (b"\xef\xbb\xbf# coding: latin-1\nx = 1\n", "cannot decode: the file starts with a UTF-8 BOM"),
    ],
)
def test_undecodable_bytes_give_one_line(data, expected):
    with pytest.raises(SourceError) as info:
        decode_source(data)
    message = str(info.value)
    assert message.startswith(expected)
    assert "\n" not in message


def test_binary_file_refused(tmp_path):
    p = tmp_path / "blob.py"
    p.write_bytes(b"x.add_(1)\x00\x01\x02")
    with pytest.raises(SourceError, match=r"^binary file \(contains NUL bytes\)"):
        read_source(str(p))


def test_huge_file_refused_with_configurable_limit(tmp_path):
    p = tmp_path / "big.py"
    p.write_text("x = 1\n" * 1000)
    with pytest.raises(SourceError, match=r"^file too large: .* limit \(max-file-size\)$"):
        read_source(str(p), max_size=100)
    assert read_source(str(p), max_size=10_000).startswith("x = 1")


def test_default_limit_is_5_mib(tmp_path):
    p = tmp_path / "huge.py"
    p.write_bytes(b"#" * (5 * 1024 * 1024 + 1))
    with pytest.raises(SourceError, match="file too large: 5.0 MB exceeds the 5.0 MB limit"):
        read_source(str(p))


def test_syntax_error_is_one_line_with_position():
    with pytest.raises(SourceError) as info:
        parse_source("x = 1\ndef f(:\n    pass\n", "bad.py")
    assert str(info.value) == "syntax error at line 2:7: invalid syntax"


def test_syntax_warnings_are_not_printed(capfd):
    parse_source("import re\nr = re.compile('\\d+')\n")
    assert capfd.readouterr().err == ""


# --- pre-filter ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "src",
    [
        "x.add_(1)",
        "torch.relu_(x)",
        "x += 1",
        "x -= 1",
        "x @= w",
        "x **= 2",
        "x //= 2",
        "x <<= 1",
        "x >>= 1",
        "x |= m",
        "x ^= m",
        "x &= m",
        "x %= 2",
        "x /= 2",
        "x *= 2",
        "y[0] = 1",
        "y[0]=1",
        "torch.add(a, b, out=c)",
        "F.relu(h, inplace=True)",
        "opt.step()",
        "p.data.zero_()",
        "nn.ReLU(True)",
        "F.dropout(x, 0.5, True, True)",
        "nn.LeakyReLU(0.2, True)",
    ],
)
def test_prefilter_keeps_every_in_place_form(src):
    assert might_write_in_place(src)


@pytest.mark.parametrize(
    "src",
    ["x = 1\n", "if a == b or a <= b or a >= b or a != b: pass\n", "y = x[0] == 1\n", "f(a=-1)\n", "import os\n"],
)
def test_prefilter_skips_code_without_in_place_patterns(src):
    assert not might_write_in_place(src)


def test_file_without_in_place_pattern_is_parsed_but_not_analysed():
    # a syntax error never passes, whatever the pre-filter says (the file is parsed, only the analysis is skipped)
    with pytest.raises(SourceError, match="syntax error at line 1"):
        check_source("y = x.exp(\n", "p.py")
    assert check_source("x = 1\n", "p.py") == []


def test_file_with_pattern_is_parsed():
    with pytest.raises(SourceError, match="syntax error"):
        check_source("x += (\n", "p.py")


# --- suppression comments -----------------------------------------------------------------------------------


def test_bare_ignore_suppresses_all_codes_on_its_line():
    src = "a\nb  # fixinplace: ignore\nc\n"
    kept = apply_suppressions([diag(1), diag(2), diag(2, "FIP102"), diag(3)], src)
    assert [(d.line, d.code) for d in kept] == [(1, "FIP101"), (3, "FIP101")]


def test_ignore_with_codes_suppresses_only_those():
    src = "a  # fixinplace: ignore[FIP101, FIP103]\n"
    kept = apply_suppressions([diag(1, "FIP101"), diag(1, "FIP102"), diag(1, "FIP103")], src)
    assert [d.code for d in kept] == ["FIP102"]


def test_ignore_with_prefix_and_other_comment_text():
    src = "a  # noqa: E501  # fixinplace: ignore[FIP1]\n"
    kept = apply_suppressions([diag(1, "FIP101"), diag(1, "FIP900", Severity.INFO)], src)
    assert [d.code for d in kept] == ["FIP900"]


def test_ignore_inside_a_string_does_not_suppress():
    src = 's = "# fixinplace: ignore"\nt = """\n# fixinplace: ignore\n"""\n'
    diags = [diag(1), diag(3)]
    assert apply_suppressions(diags, src) == diags


def test_ignore_on_last_line_of_a_multiline_write():
    src = "x.add_(\n    1,\n)  # fixinplace: ignore\n"
    assert apply_suppressions([diag(1, end_line=3)], src) == []


def test_ignore_file_spelling_is_not_a_line_suppression():
    assert parse_suppressions("a  # fixinplace: ignore-file\n") == {}


def test_parse_suppressions_survives_tokenize_errors():
    sup = parse_suppressions("x = 1  # fixinplace: ignore\ny = (\n")
    assert sup == {1: None}


# --- selection ----------------------------------------------------------------------------------------------


def test_severity_threshold_default_hides_info():
    diags = [diag(1, "FIP101", Severity.ERROR), diag(2, "FIP102", Severity.WARNING), diag(3, "FIP900", Severity.INFO)]
    assert [d.line for d in select_diagnostics(diags, Settings())] == [1, 2]
    assert [d.line for d in select_diagnostics(diags, Settings(severity=Severity.INFO))] == [1, 2, 3]
    assert [d.line for d in select_diagnostics(diags, Settings(severity=Severity.ERROR))] == [1]


def test_select_and_ignore_prefixes():
    s = Settings(select=("FIP1",))
    assert is_selected("FIP101", s) and is_selected("FIP199", s) and not is_selected("FIP900", s)
    s = Settings(ignore=("FIP10",))
    assert not is_selected("FIP101", s) and is_selected("FIP900", s)
    s = Settings(select=("FIP101",), ignore=("FIP1",))  # the more specific wins
    assert is_selected("FIP101", s) and not is_selected("FIP102", s)
    s = Settings(select=("FIP1",), ignore=("FIP1",))  # a tie: ignore wins
    assert not is_selected("FIP101", s)
    s = Settings(select=("ALL",), ignore=("FIP104",))
    assert is_selected("FIP900", s) and not is_selected("FIP104", s)


def test_override_select_resets_config_ignore():
    config = Settings(select=("FIP1",), ignore=("FIP104",))
    assert not is_selected("FIP104", config)
    cli = config.override(select=["FIP104"])
    assert is_selected("FIP104", cli)
    cli = config.override(ignore=["FIP101"])
    assert not is_selected("FIP101", cli) and not is_selected("FIP104", cli)


# --- files and reports --------------------------------------------------------------------------------------


def test_check_file_reports_one_line_errors(tmp_path):
    (tmp_path / "bad.py").write_text("x += (\n")
    result = check_file(str(tmp_path / "bad.py"))
    assert result.diagnostics == []
    assert result.error == FileError(str(tmp_path / "bad.py"), "syntax error at line 1:6: '(' was never closed")


def test_check_file_clean(tmp_path):
    (tmp_path / "ok.py").write_text("import torch\nbuf = torch.zeros(3)\nbuf.add_(1)\n")
    result = check_file(str(tmp_path / "ok.py"))
    assert result.error is None and result.diagnostics == []


def test_run_check_keeps_going_after_bad_files(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a_bad.py").write_text("x += (\n")
    (tmp_path / "b_bin.py").write_bytes(b"\x00x.add_(1)")
    (tmp_path / "c_undecodable.py").write_bytes(b"x = '\xff'\nx.add_(1)\n")
    (tmp_path / "d_ok.py").write_text("x = 1\n")
    report = run_check(["."], Settings(project_root=tmp_path))
    assert report.files == ["a_bad.py", "b_bin.py", "c_undecodable.py", "d_ok.py"]
    assert [e.path for e in report.errors] == ["a_bad.py", "b_bin.py", "c_undecodable.py"]
    assert report.exit_code == 2


def test_run_check_in_worker_processes_matches_serial(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(40):
        (tmp_path / f"m{i:02}.py").write_text("x += 1\n" if i % 7 else "x += (\n")
    serial = run_check(["."], Settings(project_root=tmp_path, jobs=1))
    parallel = run_check(["."], Settings(project_root=tmp_path, jobs=2))
    assert serial.errors == parallel.errors and serial.diagnostics == parallel.diagnostics
    assert len(serial.errors) == 6


def test_report_exit_codes():
    assert Report().exit_code == 0
    assert Report(diagnostics=[diag(1, "FIP900", Severity.INFO)]).exit_code == 0
    assert Report(diagnostics=[diag(1, "FIP102", Severity.WARNING)]).exit_code == 1
    assert Report(diagnostics=[diag(1)]).exit_code == 1
    assert Report(diagnostics=[diag(1)], errors=[FileError("x.py", "no such file or directory")]).exit_code == 2


def test_check_never_imports_torch_or_runs_code(tmp_path):
    # a file that would have side effects if it were imported or run
    marker = tmp_path / "ran"
    src = f"open({str(marker)!r}, 'w').write('x')\nimport torch\nx = torch.zeros(3)\nx.add_(1)\n"
    check_source(src, "side_effects.py")
    assert not marker.exists()
