"""The `fixinplace` command line.

    fixinplace check [PATH...] [--format text|json|sarif|github] [--select CODES] [--ignore CODES]
                     [--severity info|warning|error] [--exclude GLOB] [--config PYPROJECT] [--quiet]
                     [--output-file FILE] [--jobs N] [--no-cache]
    fixinplace fix PATH... [--apply] [--unsafe-fixes] [--select CODES] [--ignore CODES]
                   [--severity info|warning|error] [--exclude GLOB] [--config PYPROJECT] [--quiet]
                   [--verify [--timeout S] [--memory SIZE]]
    fixinplace verify PATH... [--entry NAME [--inputs NAME]] [--device cpu|cuda|all] [--format text|json]
                      [--timeout S] [--memory SIZE] [--unsafe-fixes]
    fixinplace trace [--format text|json] [--output-file FILE] [-m] SCRIPT|MODULE [ARGS...]
    fixinplace --version

Exit codes of `check`: 0 no error or warning reported; 1 some; 2 a usage or configuration error, or a path or
file that could not be checked (reported after every other file was checked). Exit codes of `fix`: without
`--apply`, 0 when the diff is empty, 1 when not; with `--apply`, 0 when no error or warning hazard remains, 1 when
some do; 2 for usage errors and files that could not be read, parsed or written (after all other files). Usage
errors are one line on stderr. Only the standard library, typer and fixinplace's own check modules are imported
here (no libcst, pygls or torch), to keep start-up fast; `fix` imports libcst (through the codemods) when it runs.

`verify` (and `fix --verify`) run user code, only in a child process (`fixinplace.verify`); torch is never
imported here. `lsp` runs the language server (`fixinplace.lsp`, importing pygls only when it runs). `trace` runs a
program under the run-time tracer (`fixinplace.trace`, importing torch only when it runs).
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from fixinplace import __version__
from fixinplace.diagnostics import one_line, printable_path

try:  # typer >= 0.2x vendors click
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover - older typer with click installed separately
    from click.exceptions import ClickException, UsageError  # type: ignore[no-redef]

try:
    from typing import Annotated
except ImportError:  # pragma: no cover - Python < 3.9
    from typing_extensions import Annotated  # type: ignore[assignment]

PROG = "fixinplace"


class OutputFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class SeverityChoice(str, Enum):
    info = "info"
    warning = "warning"
    error = "error"


app = typer.Typer(
    name=PROG,
    help="Find the in-place tensor writes that break PyTorch autograd.",
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str) -> typer.Exit:
    """Print a one-line error and return the exit (code 2) to raise."""
    print(f"{PROG}: error: {one_line(message)}", file=sys.stderr)
    return typer.Exit(2)


def _version_callback(value: bool) -> None:
    if value:
        print(f"{PROG} {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version_callback, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Find the in-place tensor writes that break PyTorch autograd."""


def _use_color(output_file: Optional[Path]) -> bool:
    if output_file is not None:
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return sys.stdout.isatty() and os.environ.get("TERM") != "dumb"


# Options shared by `check` and `fix` (one definition, so that both commands read their settings the same way).
SelectOption = Annotated[
    Optional[List[str]],
    typer.Option("--select", metavar="CODES", help="Comma-separated rule codes or prefixes to report (FIP1, ALL); replaces the configured selection.", show_default=False),
]
IgnoreOption = Annotated[
    Optional[List[str]],
    typer.Option("--ignore", metavar="CODES", help="Comma-separated rule codes or prefixes not to report.", show_default=False),
]
SeverityOption = Annotated[
    Optional[SeverityChoice],
    typer.Option("--severity", help="Lowest severity to report [default: warning].", case_sensitive=False, show_default=False),
]
ExcludeOption = Annotated[
    Optional[List[str]],
    typer.Option("--exclude", metavar="GLOB", help="Skip matching files and folders (repeatable; added to the defaults and the config).", show_default=False),
]
TimeoutOption = Annotated[
    float,
    typer.Option("--timeout", metavar="S", help="Seconds each verification run may take before it is stopped."),
]
MemoryOption = Annotated[
    Optional[str],
    typer.Option("--memory", metavar="SIZE", help="Cap on the private memory of each process of the verified code "
                 "(4G, 512M, ..., or none) [default: half the machine's memory].", show_default=False),
]
UnsafeFixesOption = Annotated[
    Optional[bool],
    typer.Option(
        "--unsafe-fixes/--no-unsafe-fixes",
        help="Also apply unsafe fixes (they drop a mutation that another name could observe, change dtype "
        "semantics, or change gradients on purpose) [default: the config's unsafe-fixes, else off].",
        show_default=False,
    ),
]
FixStyleOption = Annotated[
    Optional[str],
    typer.Option("--fix-style", metavar="STYLE", help="How subscript writes are rewritten: readable (masked_fill, "
                 "else a clone) or functional (select_scatter, slice_scatter, index_put, torch.where) [default: the "
                 "config's fix-style, else readable].", show_default=False),
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option("--config", metavar="PYPROJECT", help="Read [tool.fixinplace] from this file instead of the nearest pyproject.toml.", show_default=False),
]


def _load_settings(
    config: Optional[Path],
    targets: List[str],
    select: Optional[List[str]],
    ignore: Optional[List[str]],
    severity: Optional[SeverityChoice],
    exclude: Optional[List[str]],
    **more: object,
):
    """Settings from the configuration and the command-line flags; a configuration error exits with code 2."""
    from fixinplace.settings import ConfigError, load_settings

    try:
        return load_settings(config, targets).override(
            select=select,
            ignore=ignore,
            severity=severity.value if severity is not None else None,
            extend_exclude=exclude,
            **more,
        )
    except ConfigError as e:
        raise _fail(str(e)) from None


def _write_stdout(data: str | bytes) -> None:
    """Write to stdout; a closed pipe (`fixinplace check . | head`) is not an error."""
    try:
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
            sys.stdout.buffer.flush()
        else:
            sys.stdout.write(data)
            sys.stdout.flush()
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())


@app.command()
def check(
    paths: Annotated[
        Optional[List[str]],
        typer.Argument(metavar="PATH", help="Files and folders to check (default: the current folder).", show_default=False),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Report format.", case_sensitive=False)
    ] = OutputFormat.text,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    severity: SeverityOption = None,
    exclude: ExcludeOption = None,
    config: ConfigOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Text format: only the diagnostic and error lines, no source or summary; no progress bar.")
    ] = False,
    output_file: Annotated[
        Optional[Path],
        typer.Option("--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stdout.", show_default=False),
    ] = None,
    jobs: Annotated[
        Optional[int],
        typer.Option("--jobs", "-j", metavar="N", help="Worker processes (0: one per CPU) [default: 0].", show_default=False),
    ] = None,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the cache (.fixinplace_cache at the project root).")
    ] = False,
    unsafe_fixes: UnsafeFixesOption = None,
    fix_style: FixStyleOption = None,
) -> None:
    """Report the in-place tensor writes that break (or may break) autograd."""
    from fixinplace.engine import run_check
    from fixinplace.output import render
    from fixinplace.progress import ProgressBar

    targets = list(paths) if paths else ["."]
    settings = _load_settings(config, targets, select, ignore, severity, exclude, jobs=jobs,
                              cache=False if no_cache else None, unsafe_fixes=unsafe_fixes, fix_style=fix_style)
    refine = None
    if output_format in (OutputFormat.json, OutputFormat.sarif):
        from fixinplace.fix import offer as refine  # these formats show each diagnostic's checked fix
    progress = ProgressBar() if ProgressBar.wanted(quiet) else None
    try:
        report = run_check(targets, settings, progress, refine)
    finally:
        if progress is not None:
            progress.close()
    text = render(report, output_format.value, color=_use_color(output_file), quiet=quiet)
    if output_file is not None:
        try:
            output_file.write_text(text, encoding="utf-8")
        except OSError as e:
            raise _fail(f"{output_file}: cannot write: {e.strerror or e}") from None
    else:
        _write_stdout(text)
    raise typer.Exit(report.exit_code)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


@app.command()
def fix(
    paths: Annotated[
        List[str],
        typer.Argument(metavar="PATH", help="Files and folders to fix.", show_default=False),
    ],
    apply: Annotated[
        bool, typer.Option("--apply", help="Rewrite the files (default: print the unified diff, change nothing).")
    ] = False,
    unsafe_fixes: UnsafeFixesOption = None,
    fix_style: FixStyleOption = None,
    select: SelectOption = None,
    ignore: IgnoreOption = None,
    severity: SeverityOption = None,
    exclude: ExcludeOption = None,
    config: ConfigOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary; only the diff and the error lines.")] = False,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Run each file's original and patched code (see `fixinplace verify`) and keep "
                     "only the fixes of the files whose verification came out `verified`."),
    ] = False,
    timeout: TimeoutOption = 60.0,
    memory: MemoryOption = None,
) -> None:
    """Rewrite the hazardous in-place writes out of place: print the diff, or rewrite the files with --apply."""
    from fixinplace.fix.files import run_fix

    targets = list(paths)
    settings = _load_settings(config, targets, select, ignore, severity, exclude, unsafe_fixes=unsafe_fixes,
                              fix_style=fix_style)
    if timeout <= 0:
        raise _fail("--timeout must be positive")
    memory_cap = _memory(memory)
    report = run_fix(targets, settings, apply=apply and not verify)
    if verify:
        _keep_verified(report, settings, apply, timeout, memory_cap)
    if not apply:
        _write_stdout(b"".join(p.diff_bytes() for p in report.patches))
    for error in report.errors:
        print(f"{printable_path(error.path)}: error: {error.message}", file=sys.stderr)
    if not quiet:
        summary = "\n".join(_fix_summary(report)) + "\n"
        if apply:
            _write_stdout(summary)
        else:
            sys.stderr.write(summary)
    raise typer.Exit(report.exit_code)


def _fix_summary(report) -> List[str]:
    """The few lines that say what `fix` did (or would do) and what remains."""
    applied, files, remaining = len(report.applied), len(report.fixed_files), len(report.remaining)
    verb = "Fixed" if report.apply else "Would fix"
    line = f"{verb} {_plural(applied, 'hazard')} in {_plural(files, 'file')}"
    if remaining:
        line += f"; {remaining} {'remains' if remaining == 1 else 'remain'} (run `fixinplace check`)"
    lines = [line + "."]
    unsafe_only = report.unsafe_only
    if unsafe_only:
        lines.append(
            f"{_plural(len(unsafe_only), 'remaining hazard')} {'has' if len(unsafe_only) == 1 else 'have'} only an "
            "unsafe fix; review and apply with `--unsafe-fixes`:"
        )
        for d in unsafe_only:
            lines.append(f"  {printable_path(d.path)}:{d.line}:{d.column}: {d.code} {d.fix.description}")
    if report.errors:
        lines.append(f"{_plural(len(report.errors), 'path')} could not be fixed (see the errors above).")
    return lines


def _keep_verified(report, settings, apply: bool, timeout: float, memory: Optional[int]) -> None:
    """`fix --verify`: verify every patched file. A file whose fixes verify together keeps them all; otherwise each
    fix is verified alone, and the file keeps the fixes that verified (verified again together), the others staying
    in `remaining`. With `apply`, the kept patches are written."""
    from fixinplace.fix.checked import fix_text
    from fixinplace.fix.files import FileError, PatchError, make_patch, write_patch
    from fixinplace.verify import pair_of, verify_pairs

    report.apply = apply
    changed = [o for o in report.outcomes if o.patch is not None and o.patch.changed]
    verification = verify_pairs([pair_of(o.path, o.patch.source.text, o.patch.new_text, o.applied) for o in changed],
                                timeout=timeout, memory=memory)
    # Files whose fixes do not verify together: each fix alone (one child process for all of them).
    singles: dict[str, list] = {}
    for o in changed:
        if verification.status_of(o.path) != "verified" and len(o.applied) > 1:
            for index, d in enumerate(o.applied):
                alone = fix_text(o.patch.source.text, o.path, settings, only=_among({_hazard(d)}))
                singles.setdefault(o.path, []).append((d, pair_of(f"{o.path}#{index}", o.patch.source.text,
                                                                  alone.source, alone.applied)))
    alone_report = verify_pairs([pair for items in singles.values() for _, pair in items], timeout=timeout,
                                memory=memory) \
        if singles else None
    subsets = {}  # path -> the file fixed with only the fixes that verified alone
    for o in changed:
        if o.path not in singles:
            continue
        good = [d for d, pair in singles[o.path] if alone_report.status_of(pair.path) == "verified"]
        for d, pair in singles[o.path]:
            status = alone_report.status_of(pair.path)
            if status != "verified":
                reason = next((r["reason"] for r in alone_report.results if r["path"] == pair.path
                               and r["status"] != "verified"), "")
                print(f"{printable_path(o.path)}:{d.line}: {d.code} fix not applied ({d.fix.description if d.fix else 'fix'}): "
                      f"verification {status or 'gave no result'}" + (f": {reason}" if reason else ""),
                      file=sys.stderr)
        if good:
            subsets[o.path] = fix_text(o.patch.source.text, o.path, settings, only=_among({_hazard(d) for d in good}))
    together = verify_pairs([pair_of(o.path, o.patch.source.text, subsets[o.path].source, subsets[o.path].applied)
                             for o in changed if o.path in subsets], timeout=timeout, memory=memory) \
        if subsets else None
    for o in changed:
        status = verification.status_of(o.path)
        kept = None
        if status == "verified":
            kept = o.applied
        elif o.path in subsets and together.status_of(o.path) == "verified":
            result = subsets[o.path]
            try:
                o.patch = make_patch(o.patch.source, result.source)
            except PatchError as e:
                o.error = FileError(o.path, one_line(e))
                report.errors.append(o.error)
                continue
            applied = {_hazard(k) for k in result.applied}
            dropped = [d for d in o.applied if _hazard(d) not in applied]
            o.remaining = [d for d in dropped if d.severity.value in ("error", "warning")] + o.remaining
            o.applied = kept = list(result.applied)
        if kept is None:
            rows = verification.results if o.path not in subsets else together.results
            reasons = [r["reason"] for r in rows if r["path"] == o.path and r["status"] != "verified"]
            if o.path not in singles:
                print(f"{printable_path(o.path)}: fix not applied: verification {status or 'gave no result'}"
                      + (f": {reasons[0]}" if reasons else ""), file=sys.stderr)
            elif o.path in subsets:
                print(f"{printable_path(o.path)}: fixes not applied: each verified alone, not together"
                      + (f": {reasons[0]}" if reasons else ""), file=sys.stderr)
            o.remaining = [d for d in o.applied if d.severity.value in ("error", "warning")] + o.remaining
            o.applied = []
            o.patch = None
            continue
        for d in kept:
            print(f"{printable_path(o.path)}:{d.line}: {d.code} verified ({d.fix.description if d.fix else 'fix'})", file=sys.stderr)
        if apply:
            try:
                write_patch(o.patch)
                o.written = True
            except PatchError as e:
                o.error = FileError(o.path, one_line(e))
                report.errors.append(o.error)


_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _memory(value: Optional[str]) -> Optional[int]:
    """The bytes of a --memory SIZE (`4G`, `512M`, `1.5GiB`; None for `none`), its default when not given."""
    from fixinplace.verify.runner import DEFAULT_MEMORY, MIN_MEMORY, size_text

    if value is None:
        return DEFAULT_MEMORY
    text = value.strip().upper().removesuffix("B").removesuffix("I")
    if text == "NONE":
        return None
    try:
        size = int(float(text[:-1]) * _UNITS[text[-1:]])
    except (KeyError, ValueError, OverflowError):
        raise _fail(f"--memory: {value!r} is not a size such as 4G or 512M, or none") from None
    if size < MIN_MEMORY:
        raise _fail(f"--memory must be at least {size_text(MIN_MEMORY)} (importing torch alone takes about 300 MiB)")
    return size


def _hazard(d) -> tuple[int, int, str]:
    """What identifies a hazard of the original text: where it is and its code."""
    return d.line, d.column, d.code


def _among(hazards: set):
    """A predicate on the hazards of the original text: one of `hazards`."""
    return lambda h: _hazard(h) in hazards


class DeviceChoice(str, Enum):
    cpu = "cpu"
    cuda = "cuda"
    all = "all"


class VerifyFormat(str, Enum):
    text = "text"
    json = "json"


@app.command()
def verify(
    paths: Annotated[
        List[str],
        typer.Argument(metavar="PATH", help="Files (or folders) whose fixes to verify.", show_default=False),
    ],
    entry: Annotated[
        Optional[str],
        typer.Option("--entry", metavar="NAME", help="Function to call in the original and the patched module "
                     "(zero arguments, or the --inputs factory's).", show_default=False),
    ] = None,
    inputs: Annotated[
        Optional[str],
        typer.Option("--inputs", metavar="NAME", help="Zero-argument function returning the entry's arguments "
                     "(a tuple or list); the entry is called as entry(*inputs()). NAME is a function of the file, "
                     "or MODULE:NAME to import it.", show_default=False),
    ] = None,
    device: Annotated[
        DeviceChoice, typer.Option("--device", help="Where to run: cpu, cuda, or all available.", case_sensitive=False)
    ] = DeviceChoice.all,
    output_format: Annotated[
        VerifyFormat, typer.Option("--format", help="Report format.", case_sensitive=False)
    ] = VerifyFormat.text,
    timeout: TimeoutOption = 60.0,
    memory: MemoryOption = None,
    unsafe_fixes: Annotated[
        Optional[bool],
        typer.Option("--unsafe-fixes/--no-unsafe-fixes", help="Also verify the unsafe fixes [default: the config's "
                     "unsafe-fixes, else off].", show_default=False),
    ] = None,
) -> None:
    """Prove each fix: run the original and the patched code in a child process and compare outputs, gradients and
    visible side effects.

    Without --entry, each changed function is called on its declared inputs (a `# fixinplace: inputs=` comment or
    [tool.fixinplace.verify]), else on synthesised float64 tensors, else through main(). Exit 0 when every result
    is verified (skipped results alone also exit 0, with a note), 1 when any failed,
    2 on usage errors. User code runs only in the child process; the patched code is never written to the file.
    """
    from fixinplace.discovery import discover
    from fixinplace.fix.files import PatchError, read_file
    from fixinplace.engine import SourceError
    from fixinplace.verify import defines, fix_pair, verify_pairs
    from fixinplace.verify.report import render_json, render_text

    if inputs and not entry:
        raise _fail("--inputs needs --entry")
    if timeout <= 0:
        raise _fail("--timeout must be positive")
    memory_cap = _memory(memory)
    targets = list(paths)
    settings = _load_settings(None, targets, None, None, None, None, unsafe_fixes=unsafe_fixes)
    found = discover(targets, settings)
    errors = [f"{printable_path(e.path)}: error: {e.message}" for e in found.errors]
    pairs = []
    for path in found.files:
        try:
            text = read_file(path, settings.max_file_size).text
            pair = fix_pair(path, text, settings)
        except (SourceError, PatchError, OSError) as e:
            errors.append(f"{printable_path(path)}: error: {one_line(e)}")
            continue
        for name in (entry, inputs):
            if name and ":" not in name and pair.original != pair.patched and not defines(pair.original, name):
                raise _fail(f"{path}: no top-level {name!r} in this file")
        pairs.append(pair)
    report = verify_pairs(pairs, entry=entry, inputs=inputs, device=device.value, timeout=timeout, memory=memory_cap)
    if output_format is VerifyFormat.json:
        _write_stdout(render_json(report))
    else:
        _write_stdout(render_text(report, color=_use_color(None)))
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    skipped = sum(1 for r in report.results if r["status"] == "skipped")
    if skipped:
        print(f"note: {_plural(skipped, 'result')} skipped (not proved; see the reasons)", file=sys.stderr)
    for line in errors:
        print(line, file=sys.stderr)
    raise typer.Exit(2 if errors else report.exit_code)


@app.command()
def lsp(
    tcp: Annotated[
        Optional[str],
        typer.Option("--tcp", metavar="[HOST:]PORT", help="Serve over TCP instead of stdio (HOST defaults to 127.0.0.1).",
                     show_default=False),
    ] = None,
    stdio: Annotated[bool, typer.Option("--stdio", help="Serve over stdio (the default; accepted for editors that pass it).")] = False,
) -> None:
    """Run the language server: diagnostics, quick fixes, fix-all and hover in the editor (stdio by default)."""
    if tcp is not None:
        host, _, port = tcp.rpartition(":")
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise _fail(f"--tcp: expected HOST:PORT or PORT, got {tcp!r}")
        tcp = f"{host or '127.0.0.1'}:{port}"
    from fixinplace.lsp.server import serve

    serve(tcp)


class TraceFormat(str, Enum):
    text = "text"
    json = "json"


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False})
def trace(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(metavar="SCRIPT|MODULE", help="The script to run (or, with -m, the module), then its arguments.", show_default=False)
    ],
    module: Annotated[bool, typer.Option("-m", help="Run TARGET as a module, like `python -m`.")] = False,
    output_format: Annotated[
        TraceFormat, typer.Option("--format", help="Report format.", case_sensitive=False)
    ] = TraceFormat.text,
    output_file: Annotated[
        Optional[Path],
        typer.Option("--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stderr.", show_default=False),
    ] = None,
) -> None:
    """Run a program under the tracer and name the line that wrote a tensor saved for backward.

    Arguments after SCRIPT (or -m MODULE) are the program's. Exit status: the program's own, or 1 when it exited
    0 and a hazard was found; 2 when the script or module cannot be found (or the report file cannot be written).
    """
    from fixinplace.trace.runner import TargetError, run_traced

    try:
        code = run_traced(target, list(ctx.args), module=module, output_format=output_format.value,
                          output_file=str(output_file) if output_file is not None else None)
    except TargetError as e:
        raise _fail(str(e)) from None
    raise typer.Exit(code)


def run(argv: Optional[List[str]] = None) -> int:
    """Run the command line and return its exit code (usage errors: one line on stderr, code 2)."""
    command = typer.main.get_command(app)
    try:
        rv = command.main(args=argv, prog_name=PROG, standalone_mode=False)
    except UsageError as e:
        hint = ""
        ctx = getattr(e, "ctx", None)
        if ctx is not None:
            hint = f" (see '{ctx.command_path} --help')"
        print(f"{PROG}: error: {one_line(e.format_message())}{hint}", file=sys.stderr)
        return 2
    except ClickException as e:
        print(f"{PROG}: error: {one_line(e.format_message())}", file=sys.stderr)
        return 2
    except (typer.Abort, KeyboardInterrupt):
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    return rv if isinstance(rv, int) else 0


def main() -> None:
    """Console-script entry point (`fixinplace`)."""
    sys.exit(run())


if __name__ == "__main__":
    main()
