"""`fixinplace verify`: prove each rewrite by running the original and the patched code in a child process.

The parent (`plan`, `signature`, `declare`, `runner`, `report` and this module) never imports torch nor the
user's code: it computes the patched texts as `fix` does (`fix_pairs`: a call's hazard repaired in the file its
write is in, named or not), finds the changed functions and how to call them (`plan`: declarations from comments
and `declare`, synthesis specs from `signature`, else the program of the file or of another file of the run that
imports it: `drivers`), and hands jobs to one child process (`runner`, `child`) that, per job (`job`), makes the
inputs (`inputs`), loads both texts as fresh modules (the other files a fix rewrote from their patched texts on the
patched side: `overlay`), runs them with fixed seeds, computes the reference (`reference`, `oracles`) and compares
(`compare`). No patched text is ever written to the user's files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from fixinplace.diagnostics import Applicability, FileError
from fixinplace.settings import Settings
from fixinplace.verify.declare import declared_inputs
from fixinplace.verify.plan import (MODULE, NO_INPUTS, Changed, changed_functions, defines, on_purpose,
                                   runs_at_top_level, zero_arg_main)
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
    # {"line", "code", "strategy", "applicability"} per fix (lines of the original), and "made_in" (the files it
    # rewrote) for a call's fix made in other files
    fixes: list[dict] = field(default_factory=list)
    # A hazard reported at a call of this file and repaired where its write is, in another file: the patched text
    # of each such file (by real path), and the lines of this file's calls whose fixes they hold.
    others: dict[str, str] = field(default_factory=dict)
    calls: list[int] = field(default_factory=list)
    detach_writes: bool = False  # a fix repairs a write through `y.detach()` by writing a copy instead

    @property
    def strategies(self) -> list[str]:
        """The codemods of its fixes (`move_after_backward`, ...)."""
        return sorted({f["strategy"] for f in self.fixes if f["strategy"]})


@dataclass
class VerifyReport:
    results: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # A file whose changes are all fixes of calls in other files -> those files, whose results are its results
    through: dict[str, list[str]] = field(default_factory=dict)

    @property
    def exit_code(self) -> int:
        if any(r["status"] == "failed" for r in self.results):
            return 1
        return 0

    def to_json(self) -> dict:
        return {"results": self.results}

    def status_of(self, path: str) -> str:
        """`verified` when every result of `path` is, else `failed`/`skipped`/`changed` (the worst), `` when
        none; a file whose changes are fixes of calls in other files has the results of those files."""
        paths = {path, *self.through.get(path, ())}
        statuses = {r["status"] for r in self.results if r["path"] in paths}
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
    plan: list[tuple[FilePair, list[Changed], object, str]] = []  # (pair, functions, job id or skip rows, prefix)
    rewritten_for_calls = {os.path.realpath(path) for pair in pairs for path in pair.others}
    by_program = drivers(pairs)
    by_entry = drivers(pairs, entry) if entry and entry != SCRIPT_ENTRY and ":" not in entry else {}
    for pair in pairs:
        if pair.original == pair.patched and not pair.others:
            report.notes.append(f"{pair.path}: no fix to verify")
            continue
        functions = changed_functions(pair.original, pair.patched, pair.codes_by_line, pair.fixes, pair.calls)
        if os.path.realpath(pair.path) in rewritten_for_calls:
            # What the file's own hazards did not ask for is a call's fix, run by the calling file's job.
            functions = [fn for fn in functions if fn.codes or fn.fixes]
            if not functions:
                report.notes.append(f"{pair.path}: its changes are fixes of calls in other files, verified there")
                real = os.path.realpath(pair.path)
                report.through[pair.path] = [other.path for other in pairs if real in other.others]
                continue
        declared, root, config_error = declared_inputs(pair.path)
        if config_error:
            report.notes.append(f"{pair.path}: [tool.fixinplace.verify] not used: {config_error}")

        def add_job(entry_name: str, inputs_name: str | None, covers: list[Changed], synth: dict | None = None,
                    fallback: str = "", via: FilePair | None = None) -> None:
            job_id = len(jobs)
            runs = via or pair
            overlays = dict(pair.others)
            if via is not None:  # the other file's run, with this file's patched text on the patched side
                overlays.update(via.others)
                overlays[os.path.realpath(pair.path)] = pair.patched
            jobs.append({"id": job_id, "path": runs.path, "original": runs.original, "patched": runs.patched,
                         "entry": entry_name, "inputs": inputs_name or "", "devices": [device], "synth": synth,
                         "fallback": fallback, "root": root if via is None else declared_inputs(via.path)[1],
                         "strategies": sorted(set(pair.strategies) | set(runs.strategies)), "overlays": overlays,
                         "purposes": on_purpose(pair.fixes + (via.fixes if via is not None else [])),
                         "detach_writes": pair.detach_writes or (via is not None and via.detach_writes)})
            through = "its run as a script" if entry_name == MODULE else f"{entry_name}()"
            plan.append((pair, covers, job_id, f"through {via.path}'s {through}" if via is not None else ""))

        if entry == SCRIPT_ENTRY:  # a module that does no work of its own runs through a script that imports it
            via = None if runs_at_top_level(pair.original) else by_program.get(os.path.realpath(pair.path))
            add_job(MODULE, None, functions, via=via)
            continue
        if entry:
            via = by_entry.get(os.path.realpath(pair.path)) if not defines(pair.original, entry) else None
            add_job(entry, inputs, functions, via=via)  # a file without the entry runs through one that has it
            continue
        has_main = zero_arg_main(pair.original)
        script = runs_at_top_level(pair.original)
        driver = None if has_main or script else by_program.get(os.path.realpath(pair.path))
        uncovered, driven = [], []
        for fn in functions:
            factory = fn.inputs or declared.get(fn.function, "")
            if fn.function == MODULE:
                uncovered.append(fn)
            elif factory and "<locals>" not in fn.function:
                add_job(fn.function, factory, [fn])
            elif fn.synth.ok and not fn.synth.params and not fn.synth.cls:
                add_job(fn.synth.entry, None, [fn])  # no parameters: called as it is
            elif driver is not None:
                driven.append(fn)  # the program that uses it, rather than inputs made up for it
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
                plan.append((pair, [fn], _skip(device, f"{NO_INPUTS} ({fn.synth.reason})"), ""))
        if module_level:
            add_job(MODULE, None, module_level)  # the file run as a script (`reference.SCRIPT`)
        if driven:
            add_job("main" if zero_arg_main(driver.original) else MODULE, None, driven, via=driver)
    results = run_jobs(jobs, timeout, memory) if jobs else {}
    for pair, covers, how, prefix in plan:
        per_device = results[how] if isinstance(how, int) else how
        for fn in covers:
            for result in per_device:
                row = _row(pair, fn, result)
                row["reason"] = "; ".join(x for x in (prefix, row["reason"]) if x)
                report.results.append(row)
    return report


def drivers(pairs: list[FilePair], entry: str | None = None) -> dict[str, FilePair]:
    """For the real path of each file of the run: the first other file of the run (by path) that runs a program (a
    zero-argument `main`, or work at top level: a script, a notebook; with `entry`, one that defines that function)
    and whose analysis may load it. Its run verifies the changes of a file that has no such program of its own."""
    from fixinplace.analysis.project import dependency_files  # deferred: the analysis, not in the child

    out: dict[str, FilePair] = {}
    for driver in sorted(pairs, key=lambda p: p.path):
        runs = defines(driver.original, entry) if entry else (zero_arg_main(driver.original)
                                                               or runs_at_top_level(driver.original))
        if not runs:
            continue
        for target in dependency_files(driver.path, driver.original):
            real = os.path.realpath(target)
            if real != os.path.realpath(driver.path):
                out.setdefault(real, driver)
    return out


def fix_pair(path: str, text: str, settings=None) -> FilePair:
    """The (original, patched) pair of one file's text, patched by `fixinplace.fix.fix_text` with `settings`
    (unsafe fixes too when `settings.unsafe_fixes`)."""
    from fixinplace.fix import fix_text  # deferred: LibCST, kept out of the verify child (which imports this package)

    result = fix_text(text, path, settings or Settings())
    return pair_of(path, text, result.source, result.applied)


def fix_pairs(paths: list[str], settings: Settings) -> tuple[list[FilePair], list]:
    """(pairs, errors): the pair of each Python file of `paths` as `fix` patches it, where a hazard a call reports is
    also repaired in the file its write is in, one of `paths` or not (verify writes nothing): the calling file's pair
    holds that file's patched text (`others`) and the call's line (`calls`). Errors: a `FileError` for each file
    that cannot be read or fixed."""
    from fixinplace.engine import SourceError  # deferred: the analysis, not in the child
    from fixinplace.fix.files import FileOutcome  # deferred: the fix stage (LibCST), not in the child
    from fixinplace.fix.remote import fix_across_files, remote_files  # deferred: the fix stage, not in the child
    from fixinplace.fix.run import fix_file  # deferred: the fix stage, not in the child

    outcomes = [fix_file(path, settings) for path in paths]
    errors = [o.error for o in outcomes if o.error is not None]
    outcomes = [o for o in outcomes if o.error is None]
    written_only = [FileOutcome(path) for path in remote_files(outcomes)]  # their own hazards are not fixed here
    fix_across_files(outcomes + written_only, settings)
    texts = patched_texts(outcomes + written_only)
    pairs = []
    for o in outcomes:
        try:
            pairs.append(outcome_pair(o, texts, settings))
        except SourceError as e:
            errors.append(FileError(o.path, str(e)))
    return pairs, errors


def patched_texts(outcomes: list) -> dict[str, str]:
    """The new text of each `FileOutcome` whose file `fix` changes, by real path (what a caller's run imports)."""
    return {os.path.realpath(o.path): o.patch.new_text for o in outcomes if o.patch is not None and o.patch.changed}


def outcome_pair(outcome, texts: dict[str, str], settings: Settings) -> FilePair:
    """The pair of one file `fix` fixed (a `FileOutcome`), its text on disk when it has no patch; for the calls
    whose hazards were repaired in other files, those files' patched texts among `texts` (by real path) and the
    calls' lines. Raises `SourceError` when the file cannot be read again."""
    from fixinplace.analysis.project import display_name  # deferred: the analysis, not in the child
    from fixinplace.fix.files import read_file  # deferred: the fix stage (LibCST), not in the child

    o = outcome
    original = o.patch.source.text if o.patch is not None else read_file(o.path, settings.max_file_size).text
    pair = pair_of(o.path, original, o.patch.new_text if o.patch is not None else original, o.applied)
    own = os.path.realpath(o.path)
    called = [d for d in o.applied if id(d) in o.elsewhere]
    pair.others = {path: texts[path] for d in called for path in sorted(o.elsewhere[id(d)])
                   if path != own and path in texts}
    pair.calls = sorted({d.line for d in called})
    for fix, d in zip(pair.fixes, o.applied):
        if id(d) in o.elsewhere:
            fix["made_in"] = [display_name(Path(o.path), Path(path)) for path in sorted(o.elsewhere[id(d)])]
    return pair


def pair_of(path: str, original: str, patched: str, applied: list) -> FilePair:
    """The pair of `original` and the `patched` text its `applied` fixes (diagnostics, lines of the original)
    make, with their codes by line and each fix's line, code, strategy and applicability."""
    codes: dict[int, list[str]] = {}
    for d in applied:
        codes.setdefault(d.line, [])
        if d.code not in codes[d.line]:
            codes[d.line].append(d.code)
    fixes = [{"line": d.line, "code": d.code, "strategy": d.fix.strategy if d.fix is not None else "",
              "applicability": str(d.fix.applicability if d.fix is not None else Applicability.SAFE)}
             for d in applied]
    # A write through `y.detach()` fixed by writing a copy (unsafe: `y` no longer sees it); a safe fix keeps the
    # write reaching `y` (`y = y.clone()` before it), the original's meaning.
    detach_writes = any(d.facts is not None and d.facts.through_detach and d.fix is not None
                        and d.fix.applicability == Applicability.UNSAFE for d in applied)
    return FilePair(path, original, patched, codes, fixes, detach_writes=detach_writes)


__all__ = ["DEFAULT_MEMORY", "DEFAULT_TIMEOUT", "DEVICES", "FilePair", "SCRIPT_ENTRY", "VerifyReport", "defines",
           "drivers", "fix_pair", "fix_pairs", "outcome_pair", "pair_of", "patched_texts", "verify_pairs"]
