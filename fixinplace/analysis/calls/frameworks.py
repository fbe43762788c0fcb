"""Training frameworks recognised from their imports, never imported: AMP's `GradScaler`, Hugging Face
Accelerate's `Accelerator` (and Lightning Fabric, the same calls under other names) and Lightning's
`LightningModule`.

Each one only forwards to what the analysis already models: `scaler.scale(loss).backward()` and
`accelerator.backward(loss)` / `fabric.backward(loss)` are a backward of `loss`, `scaler.step(opt)` is `opt.step()`,
`accelerator.prepare(...)` / `fabric.setup(...)` hand back what they are given (wrapped, with the same
parameters), and in a `LightningModule` `self.manual_backward(loss)` is a backward and `self.optimizers()` the
optimizers `configure_optimizers()` returns.
Lightning calls `training_step` with grad mode on and the evaluation steps with it off.
"""

from __future__ import annotations

import ast

from fixinplace.analysis.values import (
    SCALAR,
    UNKNOWN,
    AutocastCtx,
    ClassValue,
    DictValue,
    FrameworkValue,
    FunctionValue,
    InstanceValue,
    OptimizerValue,
    QualName,
    SeqValue,
    Tri,
    Value,
)

from fixinplace.analysis.frame import Frame

GRAD_SCALERS = frozenset({
    "torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler", "torch.cuda.amp.GradScaler",
    "torch.cuda.amp.grad_scaler.GradScaler", "torch.cpu.amp.GradScaler", "torch.GradScaler",
})
ACCELERATORS = frozenset({
    "accelerate.Accelerator", "accelerate.accelerator.Accelerator",
    # Lightning Fabric: the same calls under other names (`fabric.setup(model, optimizer)`).
    "lightning.Fabric", "lightning.fabric.Fabric", "lightning_fabric.Fabric", "lightning.fabric.fabric.Fabric",
})
LIGHTNING_MODULES = frozenset({
    "lightning.LightningModule", "lightning.pytorch.LightningModule", "lightning.pytorch.core.LightningModule",
    "lightning.pytorch.core.module.LightningModule", "pytorch_lightning.LightningModule",
    "pytorch_lightning.core.LightningModule", "pytorch_lightning.core.module.LightningModule",
    "pytorch_lightning.core.lightning.LightningModule",
})
# The grad mode Lightning runs each step hook in (its loops wrap evaluation in `torch.no_grad()` or
# `torch.inference_mode()`).
LIGHTNING_STEP_GRAD_MODES: dict[str, bool] = {
    "training_step": True, "validation_step": False, "test_step": False, "predict_step": False,
}
# Methods of a LightningModule that the analysis models (when the user's class does not define them itself).
LIGHTNING_METHODS = frozenset({"manual_backward", "optimizers", "toggle_optimizer", "untoggle_optimizer",
                               "clip_gradients", "log", "log_dict"})


def framework_object(name: str) -> str | None:
    """The kind of framework object a call of this importable name builds ("grad_scaler", "accelerator")."""
    if name in GRAD_SCALERS:
        return "grad_scaler"
    if name in ACCELERATORS:
        return "accelerator"
    return None


def is_lightning_class(cls: ClassValue, seen: set[int] | None = None) -> bool:
    """Whether a file-defined class derives (directly or through file-defined bases) from a LightningModule."""
    seen = seen if seen is not None else set()
    if id(cls) in seen:
        return False
    seen.add(id(cls))
    for base in cls.bases:
        if isinstance(base, QualName) and base.name in LIGHTNING_MODULES:
            return True
        if isinstance(base, ClassValue) and is_lightning_class(base, seen):
            return True
    return False


def entry_grad_mode(name: str, owner: ClassValue | None) -> Tri:
    """The grad mode a framework runs a method in when it calls it (Lightning's step hooks), else None."""
    if owner is not None and name in LIGHTNING_STEP_GRAD_MODES and is_lightning_class(owner):
        return LIGHTNING_STEP_GRAD_MODES[name]
    return None


class FrameworksMixin:
    """Methods of AMP's GradScaler, Accelerate's Accelerator and Lightning's LightningModule."""

    def framework_method(self, obj: FrameworkValue, name: str, args: list, kwargs: dict, node: ast.Call,
                         frame: Frame) -> Value:
        """`scaler.scale(loss)`, `scaler.step(opt)`, `accelerator.backward(loss)`, `accelerator.prepare(...)`."""
        if obj.kind == "grad_scaler":
            if name == "scale":
                return args[0] if args else UNKNOWN  # `loss * scale`: its backward is the backward of `loss`
            if name == "step" and args and isinstance(args[0], OptimizerValue):
                self.optimizer_step(args[0], node, frame)
            return SCALAR  # update(), unscale_() (writes `.grad`s, which nothing saves), get_scale()
        if name == "backward" and args:
            return self._backward_of(args[0], node, frame)
        if name in ("prepare", "setup"):
            return args[0] if len(args) == 1 else SeqValue(list(args))
        if name in ("unwrap_model", "setup_module", "setup_optimizers", "prepare_model", "prepare_optimizer") \
                and args:
            return args[0] if len(args) == 1 else SeqValue(list(args))
        if name in ("clip_grad_norm_", "clip_grad_value_", "clip_gradients", "wait_for_everyone", "barrier", "print",
                    "log", "log_dict", "save_state", "save", "seed_everything", "zero_grad"):
            return SCALAR
        if name == "autocast":
            # Accelerate's and Fabric's region: on whatever device and precision the run was configured with
            # (`mixed_precision="no"` turns it off), none of which the file shows.
            return AutocastCtx(device=None, dtype=None, enabled=None)
        return UNKNOWN  # gather(), reduce(), accumulate(): values and contexts with no writes

    def lightning_method(self, module: InstanceValue, name: str, args: list, kwargs: dict, node: ast.Call,
                         frame: Frame) -> Value:
        """`self.manual_backward(loss)`, `self.optimizers()` and the bookkeeping calls of a LightningModule."""
        if name == "manual_backward" and args:
            return self._backward_of(args[0], node, frame)
        if name == "optimizers":
            return self._configured_optimizers(module, node, frame)
        return SCALAR

    def _backward_of(self, loss: Value, node: ast.Call, frame: Frame) -> Value:
        """`framework.backward(loss, ...)`: `loss.backward(...)`, named by the expression passed."""
        first = node.args[0] if node.args else node
        self.backward(frame, loss, node, f"`{self.text(first)}`", retain=self._retains(node))
        return SCALAR

    def _configured_optimizers(self, module: InstanceValue, node: ast.Call, frame: Frame) -> Value:
        """What `self.optimizers()` returns: the optimizers `configure_optimizers()` builds (one, or a list; from
        the forms Lightning accepts: an optimizer, a list or tuple of them, `(optimizers, schedulers)`, a dict
        with "optimizer")."""
        configure = self.interp.lookup_class_attr(module.cls, "configure_optimizers")
        if not isinstance(configure, FunctionValue):
            return UNKNOWN
        made = self.call_function(configure, [], {}, node, frame, self_value=module)
        optimizers = _optimizers_in(made)
        if not optimizers:
            return UNKNOWN
        return optimizers[0] if len(optimizers) == 1 else SeqValue(optimizers)


def _optimizers_in(value: Value) -> list[Value]:
    """The optimizers of what `configure_optimizers()` returned, in order."""
    if isinstance(value, OptimizerValue):
        return [value]
    if isinstance(value, DictValue):
        found = value.items.get("optimizer")
        return [found] if isinstance(found, OptimizerValue) else []
    if isinstance(value, SeqValue):
        if value.items and all(isinstance(item, OptimizerValue) for item in value.items):
            return list(value.items)
        if len(value.items) == 2 and isinstance(value.items[0], SeqValue):  # ([opt_g, opt_d], [sched_g, ...])
            return _optimizers_in(value.items[0])
        found: list[Value] = []
        for item in value.items:  # [{"optimizer": opt_g, ...}, {"optimizer": opt_d, ...}]
            found += _optimizers_in(item) if isinstance(item, DictValue) else []
        return found
    return []

