"""`fixinplace rule CODE`: one rule's explanation and examples, as Ruff's `ruff rule` prints them (Markdown text, or
a JSON object), from the registry in `fixinplace.rules`."""

from __future__ import annotations

from fixinplace.rules import Rule


def _examples(title: str, note: str, examples: tuple[str, ...]) -> list[str]:
    if not examples:
        return []
    out = [f"## {title}", "", note, ""]
    for example in examples:
        out += ["```python", example.rstrip("\n"), "```", ""]
    return out


def rule_text(rule: Rule) -> str:
    """The rule as Markdown: `# name (CODE)`, severity, summary, explanation, flagged and clean examples."""
    lines = [
        f"# {rule.name} ({rule.code})",
        "",
        f"Default severity: {rule.severity.value}.",
        "",
        "## What it does",
        "",
        rule.summary + ("" if rule.summary.endswith(".") else "."),
        "",
        "## Why is this bad?",
        "",
        rule.explanation,
        "",
    ]
    lines += _examples("Flagged", "Each line marked `# expect: CODE` is reported with that code.", rule.flagged)
    lines += _examples("Not flagged", "None of these gets an error or a warning.", rule.clean)
    lines += [
        "## Suppressing it",
        "",
        f"`# fixinplace: ignore[{rule.code}]` (or Ruff's `# noqa: {rule.code}`) at the end of the line; "
        f"`--ignore {rule.code}` or `ignore = [\"{rule.code}\"]` in the configuration for every file.",
        "",
    ]
    return "\n".join(lines)


def rule_json(rule: Rule) -> dict:
    """The rule as a JSON object: code, name, severity, summary, explanation, flagged and clean examples."""
    return {
        "code": rule.code,
        "name": rule.name,
        "severity": rule.severity.value,
        "summary": rule.summary,
        "explanation": rule.explanation,
        "flagged": list(rule.flagged),
        "clean": list(rule.clean),
    }
