"""`--format sarif`: a SARIF 2.1.0 log (validated in the tests against the official schema).

- `runs[0].tool.driver`: name, version, informationUri and one `reportingDescriptor` per rule of
  `fixinplace.rules.RULES` (shortDescription, fullDescription, help, defaultConfiguration.level, helpUri pointing
  at the rule's anchor in docs/rules.md).
- `results`: ruleId/ruleIndex, level (`error`, `warning`, `note` for info), message, one location (artifact URI
  relative to the working directory, with `uriBaseId` `%SRCROOT%`; absolute `file://` URI for files outside it),
  the region (1-based lines and columns; `endColumn` is one past the last character, as in the JSON format), and
  `relatedLocations` from `Diagnostic.related`.
- Fixes: a SARIF `fix` must carry concrete `artifactChanges`; a `Diagnostic.fix` only describes the rewrite, so
  it is reported under the result's `properties.fix` (applicability, description) and `fixes` is omitted.
- Files that could not be checked: `invocations[0].toolExecutionNotifications` (level error), and
  `executionSuccessful` is false.
- `columnKind` is `unicodeCodePoints`: columns count characters, not UTF-16 code units.
- A notebook's result: the artifact is the `.ipynb` file and the region's lines are lines of the cell (as in the
  text and JSON formats), which `properties.cell` names (1-based, among all the notebook's cells); a related
  location in a notebook has its own `properties.cell`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import quote

from fixinplace import __version__
from fixinplace.diagnostics import Diagnostic, Severity
from fixinplace.docs import rule_anchor, rule_markdown
from fixinplace.engine import Report
from fixinplace.rules import RULES

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
#: The project's home. It has no public address yet: change this one constant when it gets one.
PROJECT_URL = "https://github.com/fixinplace/fixinplace"
RULES_DOC_URL = f"{PROJECT_URL}/blob/main/docs/rules.md"
SRCROOT = "%SRCROOT%"

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def level(severity: Severity) -> str:
    return _LEVEL[severity]


def artifact_location(path: str, cwd: str | None = None) -> dict:
    """A relative URI under %SRCROOT% (the working directory) when possible, else an absolute file URI."""
    cwd = os.path.abspath(cwd or os.getcwd())
    absolute = os.path.normpath(os.path.join(cwd, path))
    rel = os.path.relpath(absolute, cwd)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(rel.replace(os.sep, "/")), "uriBaseId": SRCROOT}


def _region(line: int, column: int, end_line: int | None = None, end_column: int | None = None) -> dict:
    region = {"startLine": max(line, 1), "startColumn": max(column, 1)}
    if end_line is not None and end_column is not None:
        region["endLine"] = max(end_line, region["startLine"])
        end_col = max(end_column, 1)
        if region["endLine"] == region["startLine"]:
            end_col = max(end_col, region["startColumn"])
        region["endColumn"] = end_col
    return region


def rules_descriptors() -> list[dict]:
    return [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.explanation},
            "help": {"text": rule.explanation, "markdown": rule_markdown(rule, heading_level=0)},
            "helpUri": f"{RULES_DOC_URL}#{rule_anchor(rule)}",
            "defaultConfiguration": {"level": level(rule.severity)},
            "properties": {"tags": ["pytorch", "autograd", "in-place"]},
        }
        for rule in RULES
    ]


def result(d: Diagnostic, rule_index: dict[str, int], cwd: str | None = None) -> dict:
    location = artifact_location(d.path, cwd)
    out: dict = {
        "ruleId": d.code,
        "level": level(d.severity),
        "message": {"text": d.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": location,
                    "region": _region(d.line, d.column, d.end_line, d.end_column),
                }
            }
        ],
    }
    if d.code in rule_index:
        out["ruleIndex"] = rule_index[d.code]
    if d.related:
        out["relatedLocations"] = [
            {
                "id": i,
                "physicalLocation": {"artifactLocation": dict(location), "region": _region(r.line, r.column)},
                "message": {"text": r.message},
                **({"properties": {"cell": r.cell}} if r.cell is not None else {}),
            }
            for i, r in enumerate(d.related)
        ]
    if d.fix is not None:
        out["properties"] = {"fix": d.fix.to_json()}
    if d.cell is not None:
        out.setdefault("properties", {})["cell"] = d.cell
    return out


def as_object(report: Report, cwd: str | None = None) -> dict:
    cwd = os.path.abspath(cwd or os.getcwd())
    rules = rules_descriptors()
    rule_index = {r["id"]: i for i, r in enumerate(rules)}
    notifications = [
        {
            "level": "error",
            "message": {"text": f"{e.path}: {e.message}"},
            "locations": [{"physicalLocation": {"artifactLocation": artifact_location(e.path, cwd)}}],
        }
        for e in report.errors
    ]
    run = {
        "tool": {
            "driver": {
                "name": "fixinplace",
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": PROJECT_URL,
                "rules": rules,
            }
        },
        "invocations": [
            {"executionSuccessful": not report.errors, "toolExecutionNotifications": notifications}
        ],
        "originalUriBaseIds": {SRCROOT: {"uri": Path(cwd).as_uri().rstrip("/") + "/"}},
        "results": [result(d, rule_index, cwd) for d in report.diagnostics],
        "columnKind": "unicodeCodePoints",
    }
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def render(report: Report, cwd: str | None = None) -> str:
    return json.dumps(as_object(report, cwd), indent=2, ensure_ascii=False) + "\n"
