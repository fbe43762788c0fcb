"""A hazard the tracer saw: the write, the save it broke, the tensor, and the backward that needed it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from fixinplace.trace.registry import SavedRecord
from fixinplace.trace.sites import Site, site_of

INVALIDATED = "invalidated"  # the write bumped the saved tensor's version: backward raises (or, under other
#                               saved-tensor hooks, silently uses the new values)
SILENT = "silent"  # the write changed the saved values without a version bump: backward is silently wrong


@dataclass
class Finding:
    """One hazard, deduplicated over the run (`count`: how many times it happened)."""

    kind: str
    mutation: Optional[Site]
    saved_by: Optional[Site]
    shape: tuple
    dtype: str
    saved_version: int
    now_version: Optional[int]
    backward: Optional[Site]
    count: int = 1  # how many saved tensors this write broke over the run (same write and save lines)
    fix: Optional[dict] = field(default=None)  # {"title", "applicability", "diff"}: the fix `fixinplace fix` applies

    @classmethod
    def from_record(cls, record: SavedRecord, kind: str, backward: Optional[Site]) -> "Finding":
        """The finding for a saved tensor whose write was seen (kind given: unpack may discover a write itself)."""
        return cls(
            kind=kind,
            mutation=site_of(record.mutation_frame, record.mutation),
            saved_by=site_of(record.frame, record.op),
            shape=tuple(record.shape),
            dtype=str(record.dtype).replace("torch.", ""),
            saved_version=record.version,
            now_version=record.now_version,
            backward=backward,
        )

    @property
    def latent(self) -> bool:
        """No backward needed the broken save during the run (its graph was still alive, unused, at the end): a
        backward through that graph would fail, but none did, so the run itself was not affected."""
        return self.backward is None

    @property
    def key(self) -> tuple:
        """What makes two findings the same hazard: the same write and save (e.g. each step of a loop)."""
        return (self.kind, _where(self.mutation), _where(self.saved_by))

    def to_json(self) -> dict:
        """The public JSON form (see docs/trace.md)."""
        out = {
            "kind": self.kind,
            "mutation": self.mutation.to_json() if self.mutation else None,
            "saved_by": self.saved_by.to_json() if self.saved_by else None,
            "tensor": {
                "shape": list(self.shape),
                "dtype": self.dtype,
                "saved_version": self.saved_version,
                "version": self.now_version,
            },
            "backward": self.backward.to_json(with_op=False) if self.backward else None,
            "count": self.count,
        }
        if self.fix:
            out["fix"] = self.fix
        return out


def _where(site: Optional[Site]):
    return None if site is None else (site.filename, site.line, site.op)


def merge(findings: list, finding: Finding) -> None:
    """Add `finding` to `findings`, or count it on the equal one already there."""
    for f in findings:
        if f.key == finding.key:
            f.count += 1
            return
    findings.append(finding)


def merge_unconfirmed(findings: list, finding: Finding) -> None:
    """Add a finding no backward confirmed (its save is alive, unused) unless a confirmed finding names the same
    write: then it is the same hazard (a backward that stopped at its first error never unpacked the others) and is
    only counted there."""
    for f in findings:
        if f.key == finding.key or (f.kind == finding.kind and _where(f.mutation) == _where(finding.mutation)):
            f.count += 1
            return
    findings.append(finding)


def affected_run(findings: list) -> bool:
    """Whether any finding broke something this run used (a backward needed the save): what sets exit status 1."""
    return any(not f.latent for f in findings)
