"""The rules package: one module per rule, found by its name, each claiming the analysis's events it words and
importing nothing of the analysis but its events and values."""

from __future__ import annotations

import ast
import dataclasses
import pkgutil
from pathlib import Path

import pytest

import fixinplace.rules as rules_package
from fixinplace.analysis import events
from fixinplace.analysis.values import Group, Save, Site, Write
from fixinplace.rules import RULES, RULES_BY_CODE, Rule, rule_for

RULES_DIR = Path(rules_package.__file__).parent
RULE_MODULES = sorted(m.name for m in pkgutil.iter_modules([str(RULES_DIR)]) if m.name.startswith("fip"))
# What a rule module may import of fixinplace: the records it reads and words, never the interpreter or a later
# stage (the fix stage reaches a rule through `Repairs`, which it implements).
ALLOWED = ("fixinplace.analysis.events", "fixinplace.analysis.values", "fixinplace.diagnostics", "fixinplace.facts",
           "fixinplace.rules")


def test_every_module_is_one_rule_named_by_its_code():
    assert [rule.code for rule in RULES] == sorted(rule.code for rule in RULES)
    assert len(RULE_MODULES) == len(RULES) == len(RULES_BY_CODE)
    for name in RULE_MODULES:
        rule = __import__(f"fixinplace.rules.{name}", fromlist=["RULE"]).RULE
        assert isinstance(rule, Rule) and name == f"{rule.code.lower()}_{rule.name.replace('-', '_')}"
        assert rule.found_in and rule.severity_when, f"{rule.code}: docs/architecture.md's table needs both"


@pytest.mark.parametrize("name", RULE_MODULES)
def test_a_rule_module_imports_only_what_it_words(name: str):
    tree = ast.parse((RULES_DIR / f"{name}.py").read_text(encoding="utf-8"))
    ours = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
            and node.module.startswith("fixinplace")}
    assert all(module.startswith(ALLOWED) for module in ours), f"{name} imports {sorted(ours)}"


def test_every_event_kind_has_a_rule():
    kinds = {cls for cls in vars(events).values() if isinstance(cls, type) and dataclasses.is_dataclass(cls)
             and cls.__module__ == events.__name__}
    claimed = {rule.event for rule in RULES if rule.event is not None}
    assert kinds == claimed


def test_each_saved_tensor_event_has_exactly_one_rule():
    """A save invalidated by a write is FIP101, FIP103 or FIP104 by the write's form and silence: never two."""
    group = Group(label="h", line=1)
    save = Save(group=group, version=0, seq=0, path=(), op="sigmoid", role="output", label="h", line=2, column=1,
                certain=True)
    for form in ("method", "augassign", "setitem", "library", "optimizer", "data_assign"):
        for silent in (False, True):
            write = Write(group=group, seq=1, path=(), site=Site(node=ast.Pass(), form=form, op="add_", text="h"),
                          certain=True, silent=silent, label="h")
            event = events.SaveInvalidated(write, save, "loss", 9, True, {})
            claiming = [rule.code for rule in RULES if rule.event is events.SaveInvalidated and rule.claims(event)]
            assert len(claiming) == 1, (form, silent, claiming)
            assert rule_for(event).code == claiming[0]
            expected = "FIP104" if silent else "FIP103" if form == "optimizer" else "FIP101"
            assert claiming == [expected]
            assert rule_for(event).finding(event).message


def test_fixable_rules_are_those_that_plan_rewrites():
    for rule in RULES:
        assert rule.fixable == ("candidates" in type(rule).__dict__), rule.code
    assert RULES_BY_CODE["FIP101"].fixable and not RULES_BY_CODE["FIP106"].fixable
    assert not RULES_BY_CODE["FIP900"].fixable
