"""kaniblu/pytorch-models torchmodels/common.py (reduced: Module base class, Linear)."""
import torch.nn as nn
import torch.nn.init as init


class Module(nn.Module):
    r"""A base module class for managing module parameters."""

    name = None

    def __init__(self, *args, **kwargs):
        super(Module, self).__init__()
        self.loss = None


class Linear(nn.Linear):

    def reset_parameters(self):
        init.xavier_normal_(self.weight.detach())

        if self.bias is not None:
            self.bias.detach().zero_()
