import dataclasses
from functools import partial
from typing import Callable, Union

import torch


def _init_method(std):
    return partial(torch.nn.init.normal_, mean=0.0, std=std)


@dataclasses.dataclass
class Arguments:
    # Model arguments.
    hidden_size: int = 16
    ffn_hidden_size: int = 32
    # MoE arguments.
    moe_num_experts: int = 4
    moe_top_k: int = 2
    moe_jitter_eps: float = None
    moe_normalize_expert_weights: Union[int, float, None] = 1
    uniform_expert_assignment: bool = False
    # Initialization arguments.
    fp16: bool = False
    bf16: bool = False
    device: torch.device = torch.device("cpu")
    init_method: Callable = _init_method(0.02)


def dtype(args: Arguments):
    if args.fp16:
        return torch.float16
    if args.bf16:
        return torch.bfloat16
    return torch.float32
