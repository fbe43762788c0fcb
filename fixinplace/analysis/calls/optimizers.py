"""Optimizers: building one over parameters, `step()` (an in-place write of every parameter it holds), and
`zero_grad()`."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    UNKNOWN,
    DictValue,
    InstanceValue,
    OptimizerValue,
    ParamsValue,
    QualName,
    SeqValue,
    TensorValue,
    Value,
)

from fixinplace.analysis.calls.common import const_bool
from fixinplace.analysis.frame import Frame
from fixinplace.facts import WriteForm


OPTIMIZER_BASES = {"torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"}


def is_optimizer_base(base: Value) -> bool:
    """Whether a class base is `torch.optim.Optimizer` (a file-defined optimizer: SAM, Lamb, ...)."""
    return isinstance(base, QualName) and base.name in OPTIMIZER_BASES


class OptimizersMixin:
    """Optimizer construction, step and zero_grad."""

    def make_optimizer(self, kind: str, args: list, kwargs: dict, node: ast.Call) -> Value:
        params_arg = args[0] if args else kwargs.get("params", UNKNOWN)
        params: list[TensorValue] = []
        label = "its parameters"
        given = params_arg.items if isinstance(params_arg, SeqValue) else []
        groups = list(given) if given and all(isinstance(item, DictValue) for item in given) else []
        if isinstance(params_arg, ParamsValue):
            params, label = list(params_arg.params), params_arg.label
        elif isinstance(params_arg, SeqValue):
            groups: list[str] = []  # "the parameters of `encoder`", for each group given as a module's parameters
            loose: list[TensorValue] = []
            for item in params_arg.items:
                if isinstance(item, DictValue):  # param groups: [{"params": ..., "lr": ...}, ...]
                    item = item.items.get("params", UNKNOWN)
                if isinstance(item, ParamsValue):
                    params.extend(item.params)
                    groups.append(item.label)
                elif isinstance(item, SeqValue):
                    loose.extend(t for t in item.items if isinstance(t, TensorValue))
                elif isinstance(item, TensorValue):
                    loose.append(item)
            params.extend(loose)
            label = " and ".join(part for part in [*dict.fromkeys(groups), _listed(loose)] if part) or label
        elif isinstance(params_arg, TensorValue):
            params, label = [params_arg], f"`{params_arg.label}`"
        fused = any(k.arg == "fused" and const_bool(k.value) is True for k in node.keywords)
        return OptimizerValue(kind=kind, label=f"<{kind}>", params=params, fused=fused, params_label=label,
                              groups=groups)

    def optimizer_base_init(self, inst: InstanceValue, args: list, kwargs: dict) -> None:
        """`super().__init__(params, defaults)` in a subclass of `torch.optim.Optimizer`: the instance's
        `param_groups` hold the parameters it is given (one group, or the groups passed, each with the defaults),
        so that its methods' loops `for group in self.param_groups: for p in group["params"]: p.add_(...)` write
        those parameters (SAM's `first_step` perturbs the weights a graph saved)."""
        params_arg = args[0] if args else kwargs.get("params", UNKNOWN)
        defaults = args[1] if len(args) > 1 else kwargs.get("defaults", UNKNOWN)
        shared = dict(defaults.items) if isinstance(defaults, DictValue) else {}
        items = params_arg.items if isinstance(params_arg, SeqValue) else None
        if items and all(isinstance(item, DictValue) for item in items):
            groups = [DictValue({**shared, **item.items}) for item in items]
        elif isinstance(params_arg, ParamsValue):
            groups = [DictValue({**shared, "params": SeqValue(list(params_arg.params))})]
        elif items is not None and all(isinstance(item, TensorValue) for item in items):
            groups = [DictValue({**shared, "params": SeqValue(list(items))})]
        else:
            return  # parameters not known: the groups stay unknown
        inst.attrs["param_groups"] = SeqValue(groups)
        inst.attrs["defaults"] = defaults

    def optimizer_step(self, opt: OptimizerValue, node: ast.Call, frame: Frame) -> None:
        """`optimizer.step()`: every parameter that has a `.grad` is updated in place (silently when fused)."""
        # No frame: no write facts.
        site = self.site(node, WriteForm.OPTIMIZER, "step", extra=(("fused", str(opt.fused)),))
        site.optimizer = opt
        for param in opt.params:
            if param.group.has_grad is False:
                continue  # optimizers skip parameters whose .grad is None
            self.record_write(frame, param, site, opt.params_label, silent=opt.fused, leaf_check=False,
                              certain=param.group.has_grad is True)

    @staticmethod
    def zero_grad(params: list, node: ast.Call) -> None:
        """`zero_grad()` sets `.grad` to None (unless `set_to_none=False`): the next step skips them."""
        for kw in node.keywords:
            if kw.arg == "set_to_none" and const_bool(kw.value) is not True:
                return
        if node.args and const_bool(node.args[0]) is not True:
            return
        for param in params:
            if isinstance(param, TensorValue):
                param.group.has_grad = False


def _listed(params: list[TensorValue], shown: int = 3) -> str:
    """The parameters a list holds, by name, each name once (the layers of several submodules share names such as
    `self.model[0].weight`), the first few only."""
    names = list(dict.fromkeys(p.label for p in params))
    if not names:
        return ""
    text = "`" + "`, `".join(names[:shown]) + "`"
    rest = len(params) - sum(1 for p in params if p.label in names[:shown])
    return text + (f" and {rest} more parameter{'s' if rest > 1 else ''}" if rest else "")
