"""Reduced from torch/distributions/transforms.py (early 2018), as used by the caller."""
import torch
from torch.distributions import constraints


class Transform(object):
    """Abstract class for invertable transformations with computable log det jacobians."""
    bijective = False
    event_dim = 0

    def __call__(self, x):
        return self._call(x)

    def inv(self, y):
        return self._inverse(y)

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError


class BoltzmannTransform(Transform):
    """
    Transform from unconstrained space to the simplex via `y = exp(x)` then
    normalizing.

    This is not bijective and cannot be used for HMC. However this acts mostly
    coordinate-wise (except for the final normalization), and thus is
    appropriate for coordinate-wise optimization algorithms.
    """
    domain = constraints.real
    codomain = constraints.simplex
    event_dim = 1

    def __eq__(self, other):
        return isinstance(other, BoltzmannTransform)

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        probs = y
        return probs.log()


def transform_to_simplex():
    return BoltzmannTransform()
