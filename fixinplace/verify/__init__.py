"""`fixinplace verify`: prove each rewrite by running the original and the patched code in a child process.

The parent (`plan`, `signature`, `declare`, `runner`, `report` and this module) never imports torch nor the
user's code: it computes the patched text with `fixinplace.fix.fix_text`, finds the changed functions and how
to call them (`plan`: declarations from comments and `declare`, synthesis specs from `signature`), and hands jobs
to one child process (`runner`, `child`) that, per job (`job`), makes the inputs (`inputs`), loads both texts as
fresh modules, runs them with fixed seeds, computes the reference (`reference`, `oracles`) and compares
(`compare`). The patched text is never written to the user's file.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from fixinplace.settings import Settings
from fixinplace.verify.declare import declared_inputs
from fixinplace.verify.plan import (MODULE, NO_INPUTS, Changed, changed_functions, defines, runs_at_top_level,
                                   zero_arg_main)
from fixinplace.verify.runner import DEFAULT_MEMORY, DEFAULT_TIMEOUT, run_jobs

#: `--entry __main__`: run the whole file as a script (as `python FILE` does), whatever it defines.
SCRIPT_ENTRY = "__main__"

DEVICES = ("cpu", "cuda", "all")


@dataclass
class FilePair:
    """One file to verify: its original text and the text the fixes produce."""

    path: str
    original: str
    patched: str
    codes_by_line: dict[int, list[str]] = field(default_factory=dict)
    fixes: list[dict] = field(default_factory=list)  # {"line", "code", "strategy"} per fix (lines of the original)

    @property
    def strategies(self) -> list[str]:
        """The codemods of its fixes (`move_after_backward`, ...)."""
        return sorted({f["strategy"] for f in self.fixes if f["strategy"]})


@dataclass
class VerifyReport:
    results: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def exit_code(self) -> int:
        if any(r["status"] == "failed" for r in self.results):
            return 1
        return 0

    def to_json(self) -> dict:
        return {"results": self.results}

    def status_of(self, path: str) -> str:
        """`verified` when every result of `path` is, else `failed`/`skipped`/`changed` (the worst), `` when
        none."""
        statuses = {r["status"] for r in self.results if r["path"] == path}
        for s in ("failed", "skipped", "changed", "verified"):
            if s in statuses:
                return s
        return ""


def _row(pair: FilePair, changed: Changed, result: dict) -> dict:
    return {
        "path": pair.path,
        "function": changed.function,
        "line": changed.line,
        "codes": list(changed.codes),
        "fixes": [dict(f) for f in changed.fixes],
        "device": result["device"],
        "status": result["status"],
        "reason": result["reason"],
        "max_abs_diff": {"outputs": float(result["max_abs_diff"]["outputs"]),
                         "grads": float(result["max_abs_diff"]["grads"])},
        "reference": result["reference"],
    }


def _skip(device: str, reason: str) -> list[dict]:
    devices = ["cpu"] if device == "all" else [device]
    return [{"device": d, "status": "skipped", "reason": reason, "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
             "reference": "original"} for d in devices]


def verify_pairs(pairs: list[FilePair], *, entry: str | None = None, inputs: str | None = None,
                 device: str = "all", timeout: float = DEFAULT_TIMEOUT,
                 memory: int | None = DEFAULT_MEMORY) -> VerifyReport:
    """Verify (original, patched) text pairs; all runs share one child process (a hang costs one job), whose
    processes each have at most `memory` bytes of private memory (None: no cap)."""
    report = VerifyReport()
    jobs: list[dict] = []
    plan: list[tuple[FilePair, list[Changed], object]] = []  # (pair, functions, job id or skip rows)
    for pair in pairs:
        if pair.original == pair.patched:
            report.notes.append(f"{pair.path}: no fix to verify")
            continue
        functions = changed_functions(pair.original, pair.patched, pair.codes_by_line, pair.fixes)
        declared, root, config_error = declared_inputs(pair.path)
        if config_error:
            report.notes.append(f"{pair.path}: [tool.fixinplace.verify] not used: {config_error}")

        def add_job(entry_name: str, inputs_name: str | None, covers: list[Changed], synth: dict | None = None,
                    fallback: str = "") -> None:
            job_id = len(jobs)
            jobs.append({"id": job_id, "path": pair.path, "original": pair.original, "patched": pair.patched,
                         "entry": entry_name, "inputs": inputs_name or "", "devices": [device], "synth": synth,
                         "fallback": fallback, "root": root, "strategies": pair.strategies})
            plan.append((pair, covers, job_id))

        if entry == SCRIPT_ENTRY:
            add_job(MODULE, None, functions)
            continue
        if entry:
            add_job(entry, inputs, functions)
            continue
        has_main = zero_arg_main(pair.original)
        script = runs_at_top_level(pair.original)
        uncovered = []
        for fn in functions:
            factory = fn.inputs or declared.get(fn.function, "")
            if fn.function == MODULE:
                uncovered.append(fn)
            elif factory and "<locals>" not in fn.function:
                add_job(fn.function, factory, [fn])
            elif fn.synth.ok and not fn.synth.params and not fn.synth.cls:
                add_job(fn.synth.entry, None, [fn])  # no parameters: called as it is
            elif fn.synth.ok:
                add_job(fn.synth.entry, None, [fn], fn.synth.to_json(), "main" if has_main else "")
            else:
                uncovered.append(fn)
        module_level = [fn for fn in uncovered if fn.function == MODULE]
        functions_left = [fn for fn in uncovered if fn.function != MODULE]
        if functions_left and has_main:
            add_job("main", None, functions_left)
        elif functions_left and script:
            module_level += functions_left  # the script's run calls them
        else:
            for fn in functions_left:
                plan.append((pair, [fn], _skip(device, f"{NO_INPUTS} ({fn.synth.reason})")))
        if module_level:
            add_job(MODULE, None, module_level)  # the file run as a script (`reference.SCRIPT`)
    results = run_jobs(jobs, timeout, memory) if jobs else {}
    for pair, covers, how in plan:
        per_device = results[how] if isinstance(how, int) else how
        for fn in covers:
            for result in per_device:
                report.results.append(_row(pair, fn, result))
    return report


def fix_pair(path: str, text: str, settings=None) -> FilePair:
    """The (original, patched) pair of one file's text, patched by `fixinplace.fix.fix_text` with `settings`
    (unsafe fixes too when `settings.unsafe_fixes`)."""
    from fixinplace.fix import fix_text  # deferred: LibCST, kept out of the verify child (which imports this package)

    result = fix_text(text, path, settings or Settings())
    return pair_of(path, text, result.source, result.applied)


def pair_of(path: str, original: str, patched: str, applied: list) -> FilePair:
    """The pair of `original` and the `patched` text its `applied` fixes (diagnostics, lines of the original)
    make, with their codes by line and each fix's line, code and strategy."""
    codes: dict[int, list[str]] = {}
    for d in applied:
        codes.setdefault(d.line, [])
        if d.code not in codes[d.line]:
            codes[d.line].append(d.code)
    fixes = [{"line": d.line, "code": d.code, "strategy": d.fix.strategy if d.fix is not None else ""}
             for d in applied]
    return FilePair(path, original, patched, codes, fixes)


__all__ = ["DEFAULT_MEMORY", "DEFAULT_TIMEOUT", "DEVICES", "FilePair", "SCRIPT_ENTRY", "VerifyReport", "defines", "fix_pair", "pair_of",
           "verify_pairs"]
