"""Report formats on real Diagnostic objects: text, json (the contract), sarif (schema-validated), github."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from fixinplace import __version__
from fixinplace.diagnostics import Diagnostic, FileError, Fix, Related, Severity
from fixinplace.engine import Report
from fixinplace.output import FORMATS, render
from fixinplace.output import sarif as sarif_format
from fixinplace.rules import RULES

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"

SOURCE = (
    "import torch\n"
    "u = torch.ones(3, requires_grad=True)\n"
    "uexp = u.exp()\n"
    "loss = uexp.sum()\n"
    "uexp[0] = 666\n"
    "loss.backward()\n"
    "\tw.add_(1)\n"
)


def sample_report() -> Report:
    d1 = Diagnostic(
        path="pkg/model.py",
        line=5,
        column=1,
        end_line=5,
        end_column=8,
        code="FIP101",
        severity=Severity.ERROR,
        message="`uexp` was saved by `exp` at line 3; writing it in place makes the backward of `loss` at line 6 fail",
        related=(Related(3, 8, "`exp` saves its output here"), Related(6, 1, "the backward that needs it")),
    )
    d2 = Diagnostic(
        path="pkg/model.py",
        line=7,
        column=2,
        end_line=7,
        end_column=3,
        code="FIP102",
        severity=Severity.WARNING,
        message="`w` may be a leaf, 100% unsure: see, here",
        fix=Fix("unsafe", "rewrite `w.add_(1)` as `w = w.add(1)`", strategy="out_of_place"),
    )
    d3 = Diagnostic(
        path="pkg/other dir/b.py",
        line=2,
        column=1,
        end_line=4,
        end_column=2,
        code="FIP900",
        severity=Severity.INFO,
        message="safe in-place write",
    )
    return Report(
        files=["pkg/model.py", "pkg/other dir/b.py", "pkg/bad.py"],
        diagnostics=[d1, d2, d3],
        errors=[FileError("pkg/bad.py", "syntax error at line 3:9: invalid syntax")],
        sources={"pkg/model.py": SOURCE},
    )


# --- json -----------------------------------------------------------------------------------------------------


def test_json_is_exactly_the_contract():
    data = json.loads(render(sample_report(), "json"))
    assert list(data) == ["diagnostics", "errors"]
    first = data["diagnostics"][0]
    assert first == {
        "path": "pkg/model.py",
        "line": 5,
        "column": 1,
        "end_line": 5,
        "end_column": 8,
        "code": "FIP101",
        "severity": "error",
        "message": "`uexp` was saved by `exp` at line 3; writing it in place makes the backward of `loss` at line 6 fail",
        "fix": None,
    }
    assert data["diagnostics"][1]["fix"] == {"applicability": "unsafe", "description": "rewrite `w.add_(1)` as `w = w.add(1)`"}
    assert [d["severity"] for d in data["diagnostics"]] == ["error", "warning", "info"]
    for d in data["diagnostics"]:
        assert set(d) == {"path", "line", "column", "end_line", "end_column", "code", "severity", "message", "fix"}
        assert all(isinstance(d[k], int) for k in ("line", "column", "end_line", "end_column"))
    assert data["errors"] == [{"path": "pkg/bad.py", "message": "syntax error at line 3:9: invalid syntax"}]


def test_json_empty():
    assert json.loads(render(Report(), "json")) == {"diagnostics": [], "errors": []}


# --- text -----------------------------------------------------------------------------------------------------


def test_text_like_ruff_with_source_caret_related_and_summary():
    out = render(sample_report(), "text")
    lines = out.splitlines()
    assert lines[0] == (
        "pkg/model.py:5:1: FIP101 [error] `uexp` was saved by `exp` at line 3; writing it in place makes the "
        "backward of `loss` at line 6 fail"
    )
    assert lines[1:7] == [
        "  |",
        "5 | uexp[0] = 666",
        "  | ^^^^^^^",
        "  |",
        "  = note: pkg/model.py:3:8: `exp` saves its output here",
        "  = note: pkg/model.py:6:1: the backward that needs it",
    ]
    # the tab is expanded and the caret follows it
    i = lines.index("pkg/model.py:7:2: FIP102 [warning] `w` may be a leaf, 100% unsure: see, here")
    assert lines[i + 2] == "7 |     w.add_(1)"
    assert lines[i + 3] == "  |     ^"
    # no source available: header only
    assert "pkg/other dir/b.py:2:1: FIP900 [info] safe in-place write" in lines
    assert "pkg/bad.py: error: syntax error at line 3:9: invalid syntax" in lines
    assert lines[-3:] == ["Found 1 error, 1 warning, 1 info in 2 files.", "1 path could not be checked (see the errors above).",
                          "0 fixable with `fixinplace fix --apply` (1 more with `--unsafe-fixes`)."]
    assert "\x1b[" not in out


def test_text_summary_variants():
    assert render(Report(), "text") == "All checks passed!\n"
    one = sample_report()
    one.diagnostics = one.diagnostics[:1]
    one.errors = []
    assert render(one, "text").splitlines()[-1] == "Found 1 error, 0 warnings in 1 file."
    only_errors = Report(errors=[FileError("x.py", "no such file or directory")])
    assert render(only_errors, "text").splitlines() == [
        "x.py: error: no such file or directory",
        "",
        "No diagnostics in the files that could be checked.",
        "1 path could not be checked (see the errors above).",
    ]


def test_text_quiet_prints_only_the_lines():
    lines = render(sample_report(), "text", quiet=True).splitlines()
    assert len(lines) == 4
    assert lines[0].startswith("pkg/model.py:5:1: FIP101 [error] ")
    assert lines[3] == "pkg/bad.py: error: syntax error at line 3:9: invalid syntax"
    assert render(Report(), "text", quiet=True) == ""


def test_text_color_only_when_asked():
    assert "\x1b[1;31mFIP101" in render(sample_report(), "text", color=True)


# --- github ---------------------------------------------------------------------------------------------------


def test_github_workflow_commands():
    lines = render(sample_report(), "github").splitlines()
    assert lines[0] == (
        "::error file=pkg/model.py,line=5,col=1,endLine=5,endColumn=8,title=FIP101::`uexp` was saved by `exp` at "
        "line 3; writing it in place makes the backward of `loss` at line 6 fail"
    )
    assert lines[1] == (
        "::warning file=pkg/model.py,line=7,col=2,endLine=7,endColumn=3,title=FIP102::`w` may be a leaf, 100%25 "
        "unsure: see, here"
    )
    assert lines[2].startswith("::notice file=pkg/other dir/b.py,line=2,col=1,endLine=4,endColumn=2,title=FIP900::")
    assert lines[3] == "::error file=pkg/bad.py,title=fixinplace::syntax error at line 3:9: invalid syntax"


def test_github_escapes_properties_and_newlines():
    d = Diagnostic("a,b:c.py", 1, 1, 1, 2, "FIP101", Severity.ERROR, "two\nlines")
    assert render(Report(diagnostics=[d]), "github") == (
        "::error file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=2,title=FIP101::two%0Alines\n"
    )


# --- sarif ----------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_vendored_schema_is_the_official_sarif_2_1_0():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    assert schema["properties"]["version"]["enum"] == ["2.1.0"]
    assert "sarif-2.1.0" in schema["id"]


def test_sarif_validates_against_the_schema(validator, tmp_path):
    log = sarif_format.as_object(sample_report(), cwd=str(tmp_path))
    errors = sorted(validator.iter_errors(log), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])


def test_sarif_empty_run_validates(validator):
    log = json.loads(render(Report(), "sarif"))
    assert not list(validator.iter_errors(log))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["invocations"][0]["executionSuccessful"] is True


def test_sarif_content(tmp_path):
    log = sarif_format.as_object(sample_report(), cwd=str(tmp_path))
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "fixinplace" and driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    assert [r["id"] for r in driver["rules"]] == [r.code for r in RULES]
    rule = driver["rules"][0]
    assert rule["shortDescription"]["text"] == RULES[0].summary
    assert rule["fullDescription"]["text"] == RULES[0].explanation
    assert rule["defaultConfiguration"]["level"] == "error"
    assert rule["helpUri"].endswith("docs/rules.md#fip101")
    info_rule = next(r for r in driver["rules"] if r["id"] == "FIP900")
    assert info_rule["defaultConfiguration"]["level"] == "note"

    first, second, third = run["results"]
    assert first["ruleId"] == "FIP101" and first["level"] == "error"
    assert driver["rules"][first["ruleIndex"]]["id"] == "FIP101"
    loc = first["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "pkg/model.py", "uriBaseId": "%SRCROOT%"}
    assert loc["region"] == {"startLine": 5, "startColumn": 1, "endLine": 5, "endColumn": 8}
    related = first["relatedLocations"]
    assert [(r["physicalLocation"]["region"]["startLine"], r["message"]["text"]) for r in related] == [
        (3, "`exp` saves its output here"),
        (6, "the backward that needs it"),
    ]
    assert "fixes" not in first and "properties" not in first
    assert second["level"] == "warning"
    assert second["properties"]["fix"] == {"applicability": "unsafe", "description": "rewrite `w.add_(1)` as `w = w.add(1)`"}
    assert third["level"] == "note"
    assert third["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/other%20dir/b.py"
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.as_uri() + "/"
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    note = invocation["toolExecutionNotifications"][0]
    assert note["level"] == "error" and "syntax error at line 3:9" in note["message"]["text"]
    assert run["columnKind"] == "unicodeCodePoints"


def test_sarif_path_outside_cwd_is_an_absolute_file_uri(tmp_path):
    outside = tmp_path / "other" / "x.py"
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    loc = sarif_format.artifact_location(str(outside), str(cwd))
    assert loc == {"uri": outside.as_uri()}


def test_unknown_format():
    assert FORMATS == ("text", "json", "sarif", "github")
    with pytest.raises(ValueError):
        render(Report(), "xml")
