"""The rules: one module per rule (`fip101_saved_tensor_mutated.py`, ...), each holding its stable code, name,
default severity, explanation, examples, the message it words for the analysis's events and the rewrites it asks
the fix stage for (`fixinplace.rules.base.Rule`).

This package is the one source of truth for the rule pages of the docs (`docs/rules.md`, `docs/rules/`, rendered
by `python -m fixinplace.docs`), `fixinplace rule CODE`, SARIF's rule metadata and the rule-example tests: every
`flagged` example must produce a diagnostic with the rule's code on each line marked `# expect: CODE`, and every
`clean` example must produce no error or warning at all. A module named `fip<code>_<name>.py` that defines `RULE`
is found here by itself: adding a rule edits no list.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Optional

from fixinplace.rules.base import Finding, Repairs, Rule

__all__ = ["Finding", "RULES", "RULES_BY_CODE", "Repairs", "Rule", "rule_for"]


def _discover() -> tuple[Rule, ...]:
    found = []
    for module in pkgutil.iter_modules(__path__):
        if module.name.startswith("fip"):
            rule = importlib.import_module(f"{__name__}.{module.name}").RULE
            if not module.name.startswith(rule.code.lower() + "_"):
                raise ImportError(f"fixinplace/rules/{module.name}.py defines {rule.code}: its name must start "
                                  f"{rule.code.lower()}_")
            found.append(rule)
    return tuple(sorted(found, key=lambda rule: rule.code))


RULES: tuple[Rule, ...] = _discover()

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}

_BY_EVENT: dict[type, tuple[Rule, ...]] = {}
for _rule in RULES:
    if _rule.event is not None:
        _BY_EVENT[_rule.event] = (*_BY_EVENT.get(_rule.event, ()), _rule)


def rule_for(event: Any) -> Optional[Rule]:
    """The rule that claims an analysis event (`fixinplace.analysis.events`), or None when no rule does."""
    return next((rule for rule in _BY_EVENT.get(type(event), ()) if rule.claims(event)), None)
