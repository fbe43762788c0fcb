# utils/models/_utils.py (is_tracing only)
import torch


def is_tracing() -> bool:
    # https://github.com/pytorch/pytorch/issues/42448
    if torch.__version__ >= '1.7.0':
        return torch.jit.is_tracing()
    elif torch.__version__ >= '1.6.0':
        return torch._C._is_tracing()
    else:
        return False
