"""Reduced from torch/distributions/dirichlet.py (PyTorch 0.4): reparameterized Dirichlet sampling
through a custom autograd Function whose forward normalizes and clamps a fresh sample in place."""
import torch
from torch.autograd import Function
from torch.autograd.function import once_differentiable


def _finfo_eps(tensor):
    return torch.finfo(tensor.dtype).eps


def _dirichlet_sample_nograd(concentration):
    probs = torch._standard_gamma(concentration)
    probs /= probs.sum(-1, True)
    eps = _finfo_eps(probs)
    return probs.clamp_(min=eps, max=1 - eps)


# This helper is exposed for testing.
def _Dirichlet_backward(x, concentration, grad_output):
    total = concentration.sum(-1, True).expand_as(concentration)
    grad = torch._dirichlet_grad(x, concentration, total)
    return grad * (grad_output - (x * grad_output).sum(-1, True))


class _Dirichlet(Function):
    @staticmethod
    def forward(ctx, concentration):
        x = _dirichlet_sample_nograd(concentration)
        ctx.save_for_backward(x, concentration)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_output):
        x, concentration = ctx.saved_tensors
        return _Dirichlet_backward(x, concentration, grad_output)


class Dirichlet(object):
    def __init__(self, concentration):
        self.concentration = concentration

    def rsample(self, sample_shape=()):
        shape = torch.Size(sample_shape) + self.concentration.shape
        concentration = self.concentration.expand(shape)
        return _Dirichlet.apply(concentration)
