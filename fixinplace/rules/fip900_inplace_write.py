"""FIP900 inplace-write: a safe in-place write (informational, off by default)."""

from __future__ import annotations

from dataclasses import dataclass

from fixinplace.analysis.events import SafeWrite
from fixinplace.diagnostics import Severity
from fixinplace.rules.base import Finding, Rule


@dataclass(frozen=True)
class InplaceWrite(Rule):
    event = SafeWrite

    def finding(self, event: SafeWrite) -> Finding:
        site = event.site
        root = site.setting.root
        if site.runs.target_unknown:
            # What an argument nobody here passes holds is unknown: claim no more than what this file shows.
            who = f"`{root}`" if root else "the written tensor"
            message = (f"in-place write `{site.text}` ({site.op}): no hazard found in this file, but {who} comes "
                       f"from a caller the analysis cannot see, which may have saved it for backward")
        else:
            message = (f"in-place write `{site.text}` ({site.op}) is safe: nothing pending saved the tensor and it "
                       f"is not a leaf that requires grad in grad mode")
        return Finding(Severity.INFO, message)


RULE = InplaceWrite(
    code="FIP900",
    name="inplace-write",
    severity=Severity.INFO,
    found_in=(
        "every write site that no hazard was reported at (`Reporter.safe_writes`)"
    ),
    severity_when=(
        "`info` (off by default)"
    ),
    summary="A safe in-place write (informational, off by default)",
    explanation=(
        "Reported with `--severity info`: an in-place tensor write the analysis found safe (nothing pending "
        "saved the tensor and it is not a leaf that requires grad in grad mode). Useful when auditing code."
    ),
    flagged=(
        "import torch\n"
        "buf = torch.zeros(3)\n"
        "buf.add_(1)  # expect: FIP900\n",
    ),
    clean=(),
)
