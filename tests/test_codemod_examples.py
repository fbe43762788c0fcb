"""Each codemod's own examples: the fix turns `before` into exactly `after`, which then runs under torch without
an autograd error and with the outputs the original meant (its run under allow_mutation_on_saved_tensors)."""

from __future__ import annotations

import pytest

from codemods._driver import STRATEGIES
from fixinplace.engine import check_source
from fixinplace.fixer import fix_source

EXAMPLES = [
    (name, index, before, after)
    for name, module in sorted(STRATEGIES.items())
    for index, (before, after) in enumerate(module.EXAMPLES)
]
SAFE_PROGRAMS = [rule_example for rule_example in __import__("fixinplace.rules", fromlist=["RULES"]).RULES
                 for rule_example in rule_example.clean]


def _fix(text: str) -> tuple[str, list]:
    result = fix_source(text, "example.py", lambda t: check_source(t, "example.py"))
    return result.source, result.applied


@pytest.mark.parametrize("name,index,before,after", EXAMPLES, ids=[f"{e[0]}-{e[1]}" for e in EXAMPLES])
def test_codemod_example_rewrites_exactly(name, index, before, after) -> None:
    fixed, applied = _fix(before)
    assert fixed == after
    assert [d.fix.strategy for d in applied] == [name]
    assert _fix(after)[0] == after  # applying again changes nothing
    assert not [d for d in check_source(after, "example.py") if d.severity.value != "info"]


@pytest.mark.parametrize("name,index,before,after", EXAMPLES, ids=[f"{e[0]}-{e[1]}" for e in EXAMPLES])
def test_codemod_example_runs_and_means_the_same(name, index, before, after) -> None:
    torch = pytest.importorskip("torch")
    fixed_scope: dict = {}
    torch.manual_seed(0)
    exec(compile(after, "after", "exec"), fixed_scope)
    if name == "wrap_no_grad":
        return  # a leaf update has no allow_mutation reference: running without error is the claim
    reference_scope: dict = {}
    torch.manual_seed(0)
    with torch.autograd.graph.allow_mutation_on_saved_tensors():
        exec(compile(before, "before", "exec"), reference_scope)
    for key, value in reference_scope.items():
        if isinstance(value, torch.Tensor) and value.is_leaf and value.grad is not None:
            assert torch.equal(fixed_scope[key].grad, value.grad), key


@pytest.mark.parametrize("program", SAFE_PROGRAMS)
def test_safe_programs_are_left_alone(program: str) -> None:
    assert _fix(program)[0] == program
