"""The tracer's report: text for people, JSON for machines."""

from __future__ import annotations

import json
from typing import List, Optional

from fixinplace.diagnostics import Applicability
from fixinplace.trace.findings import INVALIDATED, Finding
from fixinplace.trace.fixes import attach_fixes
from fixinplace.trace.sites import Site


def _where(site: Optional[Site]) -> str:
    return "an unknown line" if site is None else site.where


def _quoted(site: Site) -> List[str]:
    source = site.source
    return [f"    {site.shown_line} | {source}"] if source else []


def _finding_text(f: Finding) -> List[str]:
    op = f"`{f.mutation.op}`" if f.mutation and f.mutation.op else "an in-place write"
    if f.mutation is None:
        head = (f"{_where(f.saved_by)}: a tensor saved here was written in place where the tracer does not look "
                "(a backward hook, a kernel, a torch.func transform); the backward that needs it fails")
    elif f.kind == INVALIDATED:
        then = "a backward through its graph would fail" if f.latent else "the backward that needs it fails"
        head = f"{_where(f.mutation)}: {op} wrote a tensor saved for backward; {then}"
    else:
        head = (f"{_where(f.mutation)}: {op} changed a tensor saved for backward without bumping its version; "
                "the gradient is silently wrong")
    lines = [head + (f" ({f.count} saved tensors)" if f.count > 1 else "")]
    if f.mutation is not None:
        lines += _quoted(f.mutation)
    saved_op = f"`{f.saved_by.op}`" if f.saved_by and f.saved_by.op else "an op"
    lines.append(f"  saved by {saved_op} at {_where(f.saved_by)}")
    if f.saved_by is not None:
        lines += _quoted(f.saved_by)
    shape = "[" + ", ".join(str(n) for n in f.shape) + "]"
    versions = f"saved at version {f.saved_version}" + (
        f", version {f.now_version} after the write" if f.now_version is not None else "")
    lines.append(f"  tensor: {f.dtype} {shape}, {versions}")
    if f.backward is not None:
        lines.append(f"  needed by the backward at {_where(f.backward)}")
        lines += _quoted(f.backward)
    else:
        lines.append("  latent: no backward used this graph during the run; not counted in the exit status")
    if f.fix:
        unsafe = " (unsafe: review it)" if f.fix["applicability"] != Applicability.SAFE else ""
        lines.append(f"  fix{unsafe}: {f.fix['title']}")
        lines += ["    " + line for line in f.fix["diff"].splitlines()]
    return lines


def _thread_text(errors: list) -> List[str]:
    out = []
    for e in errors:
        where = f" at {e.path}:{e.line}" if e.path else ""
        what = (" (autograd's in-place error: a hazard in a thread the tracer does not watch; trace that thread's "
                "work with `with fixinplace.trace():` inside it, or run it in the main thread)" if e.inplace else "")
        out.append(f"fixinplace trace: thread {e.thread!r} died{where}: {e.error}{what}")
    return out


def render_text(findings: List[Finding], thread_errors: list = ()) -> str:
    """The findings for people: each write with its source line, the save, the tensor, the backward, the fix;
    then the errors that ended other threads."""
    if thread_errors:
        return render_text(findings).replace("fixinplace trace: no hazard found.\n", "") + "\n".join(
            _thread_text(thread_errors)) + "\n"
    if not findings:
        return "fixinplace trace: no hazard found.\n"
    n = sum(not f.latent for f in findings)
    latent = len(findings) - n
    head = f"fixinplace trace: {n} hazard{'s' if n != 1 else ''} found"
    if latent:
        head += f", {latent} latent (a write to a tensor saved by a graph no backward used)"
    out = [head, ""]
    for f in findings:
        out += _finding_text(f) + [""]
    return "\n".join(out)


def render_json(findings: List[Finding], thread_errors: list = ()) -> str:
    """{"findings": [...]} (one object per finding, see `Finding.to_json`), and "thread_errors" when a thread of
    the program died of an exception."""
    data: dict = {"findings": [f.to_json() for f in findings]}
    if thread_errors:
        data["thread_errors"] = [e.to_json() for e in thread_errors]
    return json.dumps(data, indent=2) + "\n"


def render(findings: List[Finding], output_format: str = "text", fixes: bool = True, thread_errors: list = ()) -> str:
    """The report in `output_format` ("text" or "json"), with the static fixes attached where there are some, and
    the errors that ended the program's other threads (`fixinplace.trace.threads`)."""
    if fixes:
        attach_fixes(findings)
    if output_format == "json":
        return render_json(findings, thread_errors)
    return render_text(findings, thread_errors)
