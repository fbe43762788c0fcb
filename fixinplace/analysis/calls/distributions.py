"""`torch.distributions`: a distribution built from tensors (`Normal(mean, std)`) is no tensor. What its methods
return is a new tensor computed from the tensors it was built from (`rsample()`, `log_prob(x)`, `entropy()`, the
`mean` and `stddev` properties: differentiable, never an alias of them), or one cut from the graph (`sample()`)."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import DistributionValue, MethodRef, Value

from fixinplace.analysis.frame import Frame

PREFIX = "torch.distributions."
# Methods whose result no gradient flows through.
NOT_DIFFERENTIABLE = {"sample", "sample_n", "enumerate_support", "support"}
# Methods that return another distribution.
DISTRIBUTIONS = {"expand"}
# Properties computed from the parameters.
PROPERTIES = {"mean", "mode", "stddev", "variance", "entropy_value"}


def is_distribution(name: str) -> bool:
    """Whether an importable name is a `torch.distributions` class (its instances are distributions, transforms
    or constraints: objects, never tensors)."""
    return name.startswith(PREFIX) and name.rsplit(".", 1)[-1][:1].isupper()


class DistributionsMixin:
    """Distributions: construction, methods and properties."""

    def make_distribution(self, name: str, args: list, kwargs: dict, node: ast.Call) -> DistributionValue:
        """`Normal(mean, std)`: a distribution over the tensors it is given."""
        return DistributionValue(kind=name.rsplit(".", 1)[-1], label=self.text(node),
                                 inputs=self.tensors(list(args) + list(kwargs.values())))

    def distribution_method(self, dist: DistributionValue, name: str, args: list, kwargs: dict, node: ast.Call,
                            frame: Frame) -> Value:
        """`dist.rsample()`, `dist.log_prob(x)`, `dist.sample()`, ..."""
        if name in DISTRIBUTIONS:
            return DistributionValue(kind=dist.kind, label=self.text(node), inputs=list(dist.inputs))
        if name in NOT_DIFFERENTIABLE:
            return self.fresh_tensor(node, False, self.text(node))
        return self.generic_op(f"{dist.kind}.{name}", dist.inputs + list(args), kwargs, node, frame, is_tensor=True)

    def distribution_attribute(self, dist: DistributionValue, attr: str, node: ast.AST, frame: Frame) -> Value:
        """`dist.mean`, `dist.stddev`, ...: computed from its tensors; anything else is a method (called through
        `distribution_method`)."""
        if attr in PROPERTIES:
            return self.generic_op(f"{dist.kind}.{attr}", list(dist.inputs), {}, node, frame, is_tensor=True)
        return MethodRef(dist, attr)
