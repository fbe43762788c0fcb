"""The typed records a write's facts travel in: the write form, grad mode and a fix's applicability are enums that
stand for their text byte for byte, and a write site's two records (`SiteSetting`, `SiteRuns`) hold exactly the
fields of `WriteFacts` that the analysis fills, with the same defaults."""

from __future__ import annotations

import ast
import json
from dataclasses import MISSING, fields

import pytest

from fixinplace.analysis.report import Reporter
from fixinplace.analysis.values import Site, SiteRuns, SiteSetting
from fixinplace.diagnostics import Applicability, Fix
from fixinplace.facts import GradMode, WriteFacts, WriteForm

# Fields of `WriteFacts` that come from the site itself or from the saves and other files, not from its records.
NOT_RECORDED = {"form", "op", "text", "saves", "remotes"}
# A field of `SiteRuns` that only the analysis needs (whether some run showed where the tensor comes from).
ANALYSIS_ONLY = {"known_target"}


def _default(f) -> object:
    return f.default_factory() if f.default is MISSING else f.default


@pytest.mark.parametrize("enum", [WriteForm, GradMode, Applicability])
def test_an_enum_member_is_its_text(enum):
    for member in enum:
        text = member.value
        assert member == text and hash(member) == hash(text) and {text: 1}[member] == 1
        assert str(member) == f"{member}" == "%s" % member == text
        assert json.dumps({"k": member}) == json.dumps({"k": text})
        assert enum(text) is member


def test_a_fix_holds_its_applicability_as_a_member():
    fix = Fix("unsafe", "rewrite it")
    assert fix.applicability is Applicability.UNSAFE and fix.to_json() == {"applicability": "unsafe",
                                                                           "description": "rewrite it"}
    assert Applicability.of(True) is Applicability.SAFE and Applicability.of(False) is Applicability.UNSAFE
    with pytest.raises(ValueError):
        Fix("maybe", "rewrite it")


def test_the_cached_facts_come_back_with_members():
    facts = WriteFacts(WriteForm.AUGASSIGN, "add_", "x += 1", grad_mode=GradMode.OFF)
    raw = json.loads(json.dumps(facts.to_json()))
    assert raw["form"] == "augassign" and raw["grad_mode"] == "off"
    back = WriteFacts.from_json(raw)
    assert back == facts and back.form is WriteForm.AUGASSIGN and back.grad_mode is GradMode.OFF
    with pytest.raises(ValueError):
        WriteFacts.from_json({**raw, "form": "assign"})


def test_grad_mode_of_a_three_valued_flag():
    assert [GradMode.of(v) for v in (True, False, None)] == [GradMode.ON, GradMode.OFF, GradMode.UNKNOWN]


def test_a_site_takes_its_form_as_a_member():
    assert Site(node=ast.Pass(), form="method", op="add_", text="x.add_(1)").form is WriteForm.METHOD
    with pytest.raises(ValueError):
        Site(node=ast.Pass(), form="assign", op="add_", text="x.add_(1)")


def test_the_site_records_hold_the_write_facts_fields():
    """Each recorded field of `WriteFacts` is in exactly one of the records, under its name and type; a record's
    default is the one `WriteFacts` has, or None in `SiteRuns` for "no run wrote a tensor yet"."""
    facts = {f.name: f for f in fields(WriteFacts)}
    setting = {f.name: f for f in fields(SiteSetting)}
    runs = {f.name: f for f in fields(SiteRuns) if f.name not in ANALYSIS_ONLY}
    assert not set(setting) & set(runs)
    assert set(setting) | set(runs) == set(facts) - NOT_RECORDED
    for name, f in setting.items():
        assert f.type == facts[name].type and _default(f) == _default(facts[name]), name
    for name, f in runs.items():
        assert f.type in (facts[name].type, f"Optional[{facts[name].type}]"), name
        assert _default(f) in (_default(facts[name]), None), name


def test_a_fresh_site_gives_the_default_facts():
    site = Site(node=ast.Pass(), form=WriteForm.OPTIMIZER, op="step", text="opt.step()")
    assert Reporter._write_facts(site, {}) == WriteFacts(WriteForm.OPTIMIZER, "step", "opt.step()")


def _other_than_default(f) -> object:
    default = _default(f)
    if isinstance(default, bool) or f.type == "Optional[bool]":  # a flag, or one unset until a run sets it
        return not default
    if isinstance(default, GradMode):
        return GradMode.UNKNOWN
    if isinstance(default, int):
        return 7
    if isinstance(default, tuple):
        return ("a",)
    return "z"  # a text, or a field that is None by default (the value only passes through)


def test_every_recorded_field_reaches_the_write_facts():
    """A site whose records hold a value other than the default in every field: the facts have each of them."""
    site = Site(node=ast.Pass(), form="setitem", op="__setitem__", text="x[0] = 1")
    changed = {}
    for record in (site.setting, site.runs):
        for f in fields(record):
            changed[f.name] = _other_than_default(f)
            setattr(record, f.name, changed[f.name])
    facts = Reporter._write_facts(site, {})
    for name, value in changed.items():
        if name not in ANALYSIS_ONLY:
            assert getattr(facts, name) == value, name
