# Reduced from rlkit/torch/pytorch_util.py (CPU only).
import numpy as np
import torch


def soft_update_from_to(source, target, tau):
    for target_param, param in zip(target.parameters(), source.parameters()):
        target_param.data.copy_(
            target_param.data * (1.0 - tau) + param.data * tau
        )


def fanin_init(tensor):
    size = tensor.size()
    if len(size) == 2:
        fan_in = size[0]
    elif len(size) > 2:
        fan_in = np.prod(size[1:])
    else:
        raise Exception("Shape must be have dimension at least 2.")
    bound = 1. / np.sqrt(fan_in)
    return tensor.data.uniform_(-bound, bound)


def zeros(*sizes, **kwargs):
    return torch.zeros(*sizes, **kwargs)


def ones(*sizes, **kwargs):
    return torch.ones(*sizes, **kwargs)
