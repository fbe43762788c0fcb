"""Turns hazards found by the interpreter into diagnostics with precise messages and positions."""

from __future__ import annotations

import ast

from fixinplace.analysis.values import Save, Site, Write
from fixinplace.diagnostics import Diagnostic, Related, Severity
from fixinplace.rules import (
    INPLACE_WRITE,
    LEAF_MUTATED,
    PARAMETERS_UPDATED_BEFORE_BACKWARD,
    SAVED_TENSOR_MUTATED,
    SILENT_SAVED_TENSOR_MUTATION,
)


def describe_role(save: Save) -> str:
    """`exp saves its output`, `pow saves its input`, `batch_norm saves its running_mean`."""
    if save.role == "output":
        return "its output"
    if save.role == "input":
        return "its input"
    return f"its {save.role}"


class Reporter:
    """Collects diagnostics, one per (write site, code), keeping the most severe."""

    def __init__(self, source: str, path: str) -> None:
        self.source = source
        self.path = path
        self.lines = source.splitlines()
        self.found: dict[tuple[int, str], Diagnostic] = {}
        self.sites: dict[int, Site] = {}

    # ------------------------------------------------------------------------------------------ positions
    def _char_col(self, line: int, byte_col: int) -> int:
        """ast columns count UTF-8 bytes; diagnostics count characters (1-based)."""
        if 1 <= line <= len(self.lines):
            text = self.lines[line - 1]
            return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore")) + 1
        return byte_col + 1

    def span(self, node: ast.AST) -> tuple[int, int, int, int]:
        """1-based (line, column, end_line, end_column) of a node, columns in characters."""
        line = getattr(node, "lineno", 1)
        end_line = getattr(node, "end_lineno", None) or line
        col = self._char_col(line, getattr(node, "col_offset", 0))
        end_col = self._char_col(end_line, getattr(node, "end_col_offset", None) or 0)
        return line, col, end_line, end_col

    # ------------------------------------------------------------------------------------------ emit
    def add(self, site: Site, code: str, severity: Severity, message: str, related=(), data=()) -> None:
        """Record one diagnostic at a write site (the most severe one per site and code wins)."""
        self.sites[id(site.node)] = site
        key = (id(site.node), code)
        old = self.found.get(key)
        if old is not None and old.severity.rank >= severity.rank:
            return
        line, col, end_line, end_col = self.span(site.node)
        facts = (("form", site.form), ("op", site.op), ("text", site.text), *site.extra, *site.facts.items(), *data)
        self.found[key] = Diagnostic(
            path=self.path,
            line=line,
            column=col,
            end_line=end_line,
            end_column=end_col,
            code=code,
            severity=severity,
            message=message,
            related=tuple(related),
            data=tuple(facts),
        )

    def invalidated(self, write: Write, save: Save, backward_label: str, backward_line: int | None,
                    certain: bool) -> None:
        """A backward needs a save that this write changed afterwards."""
        site = write.site
        saved = save.group.label
        written = write.label
        via = "" if written == saved else f" (it shares `{saved}`'s storage and version counter)"
        at = f" at line {backward_line}" if backward_line else ""
        save_text = f"`{saved}` was saved by `{save.op}` at line {save.line} ({save.op} saves {describe_role(save)} for backward)"
        related = (Related(save.line, save.column, f"`{saved}` saved for backward by `{save.op}` here"),)
        data = (("saved_by", save.op), ("saved_line", str(save.line)), ("saved_label", saved), ("role", save.role),
                ("saved_span", f"{save.line}:{save.column}:{save.end_line}:{save.end_column}"))
        if write.silent:
            how = "through `.data`" if site.form == "data" or ".data" in written else "by a fused optimizer (no version bump)"
            message = (
                f"`{written}` is written in place {how}{via}; {save_text}. No error is raised: the backward of "
                f"{backward_label}{at} silently computes a wrong gradient"
            )
            code = SILENT_SAVED_TENSOR_MUTATION.code
        elif site.form == "optimizer":
            message = (
                f"`{site.text}` updates {written} in place; {save_text}, and the backward of "
                f"{backward_label}{at} runs after the update, so it fails (\"modified by an inplace operation\"). "
                f"Step after that backward, or recompute the loss after the step"
            )
            code = PARAMETERS_UPDATED_BEFORE_BACKWARD.code
        else:
            message = (
                f"in-place write to `{written}`{via}: {save_text}; writing it in place makes the backward of "
                f"{backward_label}{at} fail (\"modified by an inplace operation\")"
            )
            code = SAVED_TENSOR_MUTATED.code
        severity = Severity.ERROR if certain else Severity.WARNING
        self.add(site, code, severity, message, related, data)

    def leaf(self, site: Site, label: str, why: str, certain: bool) -> None:
        """A write to a leaf that requires grad (or a view of one) in grad mode."""
        if certain:
            message = (
                f"in-place write to `{label}`, a leaf tensor that requires grad ({why}), in grad mode: PyTorch "
                f"raises \"a leaf Variable that requires grad is being used in an in-place operation\" here. "
                f"Update it under `torch.no_grad()`, or write a copy"
            )
        else:
            message = (
                f"in-place write to `{label}` ({why}): if it is a leaf tensor that requires grad and grad mode is "
                f"on, PyTorch raises \"a leaf Variable that requires grad is being used in an in-place operation\""
            )
        self.add(site, LEAF_MUTATED.code, Severity.ERROR if certain else Severity.WARNING, message,
                 data=(("leaf", label),))

    def safe_writes(self, sites: dict[int, Site]) -> None:
        """Info diagnostics for write sites that got no hazard."""
        flagged = {key[0] for key in self.found}
        for key, site in sites.items():
            if key in flagged:
                continue
            self.add(site, INPLACE_WRITE.code, Severity.INFO,
                     f"in-place write `{site.text}` ({site.op}) is safe: nothing pending saved the tensor and it is "
                     f"not a leaf that requires grad in grad mode")

    def diagnostics(self) -> list[Diagnostic]:
        """All diagnostics in source order."""
        return sorted(self.found.values(), key=lambda d: (d.line, d.column, d.code))
