"""Wording shared by several rules' messages: how a save, its role and what it waits for are named."""

from __future__ import annotations

from fixinplace.analysis.values import AutocastDoubt, Save, SiteSetting
from fixinplace.diagnostics import Related


def shorten(text: str, width: int = 60) -> str:
    """Source text as messages and fix records show it: at most `width` characters."""
    return text if len(text) <= width else text[:width - 3] + "..."


def saved_remedy(save: Save, written: str) -> str:
    """What to do about a write to a saved tensor: the two rewrites that keep the saved tensor intact."""
    if save.role == "output":
        keep = f"clone `{save.op}`'s result where it is made (`.clone()`)"
    elif save.role == "input":
        keep = f"give `{save.op}` a clone of its input"
    else:
        keep = f"clone the tensor before `{save.op}` saves it"
    return f"Write `{written}` out of place instead (into a new tensor), or {keep}"


def waits_for(save: Save) -> str:
    """What an uncertain save waits for that the file does not show, as a warning names it (" when grad mode is
    on and `targets` requires grad, which this file does not show"), or ""."""
    facts = ["grad mode is on"] if save.grad_mode_unknown else []
    if save.inputs_unknown:
        facts.append(" or ".join(f"`{shorten(label, 30)}`" for label in save.inputs_unknown) + " requires grad")
    if save.autocast_unknown is not None:
        facts.append(_autocast_fact(save.autocast_unknown))
    return f" when {' and '.join(facts)}, which this file does not show" if facts else ""


def _autocast_fact(doubt: AutocastDoubt) -> str:
    """The fact that would make a save in an autocast region a cast copy: "autocast (line 6) is off"."""
    where = f"autocast (line {doubt.line})" if doubt.line else "autocast"
    label = shorten(doubt.label, 30)
    if doubt.reason == "off":
        return f"{where} is off"
    if doubt.reason == "device":
        on = f"on {doubt.device}" if doubt.device else "on the device it runs on"
        return f"{where} {on} keeps `{label}` itself for `{doubt.op}` (autocast measured on the CPU and CUDA only)"
    return f"`{label}` is already {doubt.dtype or 'in the dtype autocast casts to'} there ({where})"


def describe_role(save: Save) -> str:
    """`exp saves its output`, `pow saves its input`, `batch_norm saves its running_mean`."""
    if save.role == "output":
        return "its output"
    if save.role == "input":
        return "its input"
    return f"its {save.role}"


def save_text(save: Save, certain: bool) -> str:
    """Which op saved which tensor, where, and what the save waits for when it is not certain:
    "`h` was saved by `sigmoid` at line 4 (sigmoid saves its output for backward)"."""
    where = f"{save.file}:{save.line}" if save.file else f"line {save.line}"
    on = {"cuda": " on CUDA", "cpu": " on the CPU"}.get(save.device or "", "")
    when = "" if certain else waits_for(save)
    return (f"`{save.group.label}` was saved by `{save.op}` at {where} ({save.op} saves {describe_role(save)} for "
            f"backward{on}{when})")


def shares(written: str, saved: str, silent: bool) -> str:
    """How the written expression reaches the saved tensor, for the message (" (it shares `h`'s storage and
    version counter)"), or "" when it is the saved tensor itself. `.data` and `.numpy()` share the storage only:
    that is why no version check catches their writes."""
    if written == saved:
        return ""
    shared = "storage (not its version counter)" if silent else "storage and version counter"
    return f" (it shares `{saved}`'s {shared})"


def backward_at(label: str, line: int | None) -> str:
    """What is differentiated, and where when it is in this file: "`loss` at line 9"."""
    return f"{label} at line {line}" if line else label


def saved_here(save: Save) -> tuple[Related, ...]:
    """The related place a diagnostic points to: where the tensor was saved, when that is in the checked file."""
    if save.file:
        return ()
    return (Related(save.line, save.column, f"`{save.group.label}` saved for backward by `{save.op}` here"),)


def inplace_module(setting: SiteSetting) -> str:
    """How a message names a module that runs in place (its site's `module_ctor` is set): where it was built, and
    where the `True` that turned it in place stands when that is another line (`m.inplace = True` in a loop over
    `self.modules()`, a default)."""
    ctor_line = setting.module_ctor.line
    literal = setting.inplace_literal
    elsewhere = dict(setting.extra).get("inplace_line")
    literal_line = literal.line if literal is not None else int(elsewhere) if elsewhere else None
    if literal_line is None or literal_line == ctor_line:
        return f"the module built with `inplace=True` at line {ctor_line}"
    return f"the module built at line {ctor_line}, run in place by the `True` at line {literal_line}"
