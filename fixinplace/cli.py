"""The `fixinplace` command line (every flag is documented in docs/cli.md).

    fixinplace check [PATH...|-] [--format text|json|sarif|github] [--select/--extend-select CODES]
                     [--ignore/--extend-ignore CODES] [--per-file-ignores GLOB:CODES] [--severity LEVEL]
                     [--exclude GLOB] [--config FILE] [--quiet] [--output-file FILE] [--jobs N] [--no-cache]
                     [--statistics] [--exit-zero] [--show-fixes] [--stdin-filename PATH] [--add-noqa] [--watch]
                     [--color auto|always|never] [--device cpu|cuda|any]
    fixinplace fix [PATH...|-] [--apply] [--unsafe-fixes] [selection flags as check] [--no-cache] [--quiet] [--show-fixes]
                   [--output-file FILE] [--stdin-filename PATH] [--device cpu|cuda|any]
                   [--verify [--timeout S] [--memory SIZE]]
    fixinplace verify PATH... [--entry NAME [--inputs NAME]] [--device cpu|cuda|all] [--format text|json]
                      [--timeout S] [--memory SIZE] [--unsafe-fixes] [--output-file FILE]
    fixinplace trace [--format text|json] [--output-file FILE] [-m] SCRIPT|MODULE [ARGS...]
    fixinplace rule CODE|--all [--output-format text|json]
    fixinplace version | -V | --version
    fixinplace generate-shell-completion bash|zsh|fish

Exit codes of `check`: 0 no error or warning reported; 1 some; 2 a usage or configuration error, or a path or
file that could not be checked (reported after every other file was checked). Exit codes of `fix`: without
`--apply`, 0 when the diff is empty, 1 when not; with `--apply`, 0 when no error or warning hazard remains, 1 when
some do; 2 for usage errors and files that could not be read, parsed or written (after all other files). Usage
errors are one line on stderr. Only the standard library, typer and fixinplace's own check modules are imported
here (no libcst, pygls or torch), to keep start-up fast; `fix` imports libcst (through the codemods) when it runs,
and `check` only for a file with an error or a warning (to find its checked fix: `[*]`, json, sarif).

`verify` (and `fix --verify`) run user code, only in a child process (`fixinplace.verify`); torch is never
imported here. `lsp` runs the language server (`fixinplace.lsp`, importing pygls only when it runs). `trace` runs a
program under the run-time tracer (`fixinplace.trace`, importing torch only when it runs).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import sys
import time
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer
from typer._completion_classes import completion_init
from typer._completion_shared import get_completion_script

from fixinplace import __version__
from fixinplace.diagnostics import blocking, one_line, position, printable_path
from fixinplace.discovery import discover
from fixinplace.engine import SourceError, run_check
from fixinplace.fixable import offer_fixes
from fixinplace.output import render
from fixinplace.progress import ProgressBar
from fixinplace.reading import is_notebook
from fixinplace.settings import CONFIG_NAMES, ConfigError, common_folder, load_settings

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


class _Argument(typer.core.TyperArgument):
    """An argument shown as its metavar only: `PATH...`, not `{PATH}...` nor `PATH <list[str]>`."""

    def display_type_rich(self, ctx):  # noqa: D102 - the type is in the help text
        return None

    def make_metavar(self, ctx=None, *, usage: bool = False) -> str:  # noqa: D102 - as in the docstring
        name = self.metavar or (self.name or "").upper()
        if usage and not self.required:
            name = f"[{name}]"
        return name + ("..." if usage and self.nargs != 1 else "")


class _Command(typer.core.TyperCommand):
    """A command whose arguments read as in other Unix tools' help (see `_Argument`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if type(param) is typer.core.TyperArgument:
                param.__class__ = _Argument


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
        typer.Option("--version", "-V", callback=_version_callback, is_eager=True, help="Print the version and exit."),
    ] = False,
) -> None:
    """Find the in-place tensor writes that break PyTorch autograd."""


class ColorChoice(str, Enum):
    auto = "auto"
    always = "always"
    never = "never"


ColorOption = Annotated[
    ColorChoice,
    typer.Option("--color", help="Colour the text output: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR "
                 "forces it), always or never.", case_sensitive=False),
]


def _use_color(output_file: Optional[Path], color: ColorChoice = ColorChoice.auto, stream=None) -> bool:
    """Whether to colour: `--color always|never`, else (auto) NO_COLOR, then FORCE_COLOR, then whether the output is a
    terminal (never when it goes to a file)."""
    if color is ColorChoice.always:
        return True
    if color is ColorChoice.never or output_file is not None:
        return False
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    return (stream or sys.stdout).isatty() and os.environ.get("TERM") != "dumb"


def _emit(data: str | bytes, output_file: Optional[Path]) -> None:
    """Write a report to FILE (replaced whole, through a temporary file) or to stdout."""
    if output_file is None:
        _write_stdout(data)
        return
    raw = data.encode("utf-8") if isinstance(data, str) else data
    folder = output_file.parent if str(output_file.parent) else Path(".")
    tmp = folder / f".{output_file.name}.{os.getpid()}.tmp"
    try:
        tmp.write_bytes(raw)
        os.replace(tmp, output_file)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise _fail(f"{output_file}: cannot write: {e.strerror or e}") from None


# Options shared by `check` and `fix` (one definition, so that both commands read their settings the same way).
SelectOption = Annotated[
    Optional[List[str]],
    typer.Option("--select", metavar="CODES", help="Comma-separated rule codes or prefixes to report (FIP1, ALL); replaces the configured selection.", show_default=False),
]
IgnoreOption = Annotated[
    Optional[List[str]],
    typer.Option("--ignore", metavar="CODES", help="Comma-separated rule codes or prefixes not to report.", show_default=False),
]
ExtendSelectOption = Annotated[
    Optional[List[str]],
    typer.Option("--extend-select", metavar="CODES", help="Rule codes or prefixes to report on top of the selection.",
                 show_default=False),
]
ExtendIgnoreOption = Annotated[
    Optional[List[str]],
    typer.Option("--extend-ignore", metavar="CODES", help="Rule codes or prefixes not to report, on top of the "
                 "configured ignore list.", show_default=False),
]
PerFileIgnoresOption = Annotated[
    Optional[List[str]],
    typer.Option("--per-file-ignores", metavar="GLOB:CODES", help="Codes not to report in the files matching GLOB "
                 "(repeatable; added to the config's per-file-ignores).", show_default=False),
]
StdinFilenameOption = Annotated[
    Optional[str],
    typer.Option("--stdin-filename", metavar="PATH", help="The name of the code read from standard input (`-`): "
                 "shown in the report, and used to find the config and apply the exclusions.", show_default=False),
]
OutputFileOption = Annotated[
    Optional[Path],
    typer.Option("--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stdout.", show_default=False),
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
DeviceOption = Annotated[
    Optional[str],
    typer.Option("--device", metavar="DEVICE", help="Where the code trains: cpu, cuda or any; a hazard that exists on "
                 "one device only (cuDNN's LSTM saves its output, the CPU's does not) is reported for that device "
                 "[default: the config's device, else any].", show_default=False),
]
NoCacheOption = Annotated[
    bool, typer.Option("--no-cache", help="Neither read nor write the cache (.fixinplace_cache at the project root).")
]
ConfigOption = Annotated[
    Optional[Path],
    typer.Option("--config", metavar="FILE", help="Read the settings from this file (a fixinplace.toml, or a "
                 "pyproject.toml's [tool.fixinplace]) instead of the nearest .fixinplace.toml, fixinplace.toml or "
                 "pyproject.toml.", show_default=False),
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
    try:
        return load_settings(config, targets).override(
            select=select,
            ignore=ignore,
            # (extend_select, extend_ignore and per_file_ignores come in `more`)
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


CHECK_EPILOG = """\b
Exit status:
  0  no error or warning reported (also with --exit-zero when some were)
  1  an error or warning reported
  2  a usage or configuration error, or a path or file that could not be checked
"""


def _stdin_target(paths: Optional[List[str]], stdin_filename: Optional[str]) -> tuple[List[str], bool]:
    """The paths to check and whether the code comes from standard input (`-`, or only --stdin-filename)."""
    targets = list(paths) if paths else []
    if "-" in targets and targets != ["-"]:
        raise _fail("`-` (standard input) cannot be combined with other paths")
    stdin = targets == ["-"] or (not targets and stdin_filename is not None)
    if stdin_filename is not None and not stdin:
        raise _fail("--stdin-filename names the code read from standard input: pass `-` instead of paths")
    if stdin:
        return [stdin_filename] if stdin_filename else ["."], True
    return targets or ["."], False


def _read_stdin() -> bytes:
    """Standard input, read once, whole."""
    try:
        return sys.stdin.buffer.read()
    except OSError as e:
        raise _fail(f"-: cannot read standard input: {e.strerror or e}") from None


@app.command(cls=_Command, epilog=CHECK_EPILOG)
def check(
    paths: Annotated[
        Optional[List[str]],
        typer.Argument(metavar="PATH", help="Files and folders to check (default: the current folder); `-` reads "
                       "the code from standard input.", show_default=False),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Report format.", case_sensitive=False)
    ] = OutputFormat.text,
    select: SelectOption = None,
    extend_select: ExtendSelectOption = None,
    ignore: IgnoreOption = None,
    extend_ignore: ExtendIgnoreOption = None,
    per_file_ignores: PerFileIgnoresOption = None,
    severity: SeverityOption = None,
    exclude: ExcludeOption = None,
    config: ConfigOption = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Text format: only the diagnostic and error lines, no source or summary; no progress bar.")
    ] = False,
    output_file: OutputFileOption = None,
    jobs: Annotated[
        Optional[int],
        typer.Option("--jobs", "-j", metavar="N", help="Worker processes (0: one per CPU) [default: 0].", show_default=False),
    ] = None,
    no_cache: NoCacheOption = False,
    unsafe_fixes: UnsafeFixesOption = None,
    fix_style: FixStyleOption = None,
    device: DeviceOption = None,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of diagnostics of each code instead of the "
                           "diagnostics (text or json format).")
    ] = False,
    exit_zero: Annotated[
        bool, typer.Option("--exit-zero", help="Exit with status 0 even when errors or warnings are reported "
                           "(files that could not be checked still exit 2).")
    ] = False,
    show_fixes: Annotated[
        bool, typer.Option("--show-fixes", help="Text format: show each diagnostic's fix (`= help:` line).")
    ] = False,
    stdin_filename: StdinFilenameOption = None,
    add_noqa: Annotated[
        bool, typer.Option("--add-noqa", help="Add a `# fixinplace: ignore[CODE]` comment for every diagnostic "
                           "reported, instead of reporting them.")
    ] = False,
    watch: Annotated[
        bool, typer.Option("--watch", "-w", help="Check again whenever a checked file or the config changes "
                           "(until Ctrl-C).")
    ] = False,
    color: ColorOption = ColorChoice.auto,
) -> None:
    """Report the in-place tensor writes that break (or may break) autograd."""
    targets, stdin = _stdin_target(paths, stdin_filename)
    if stdin and (add_noqa or watch):
        raise _fail(f"{'--add-noqa' if add_noqa else '--watch'} needs files, not standard input")
    if statistics and output_format not in (OutputFormat.text, OutputFormat.json):
        raise _fail("--statistics prints text or json (--format text|json)")
    def load():
        return _load_settings(config, targets, select, ignore, severity, exclude, jobs=jobs,
                              cache=False if no_cache else None, unsafe_fixes=unsafe_fixes, fix_style=fix_style, device=device,
                              extend_select=extend_select, extend_ignore=extend_ignore,
                              per_file_ignores=per_file_ignores)

    settings = load()
    refine = None
    if output_format is not OutputFormat.github and not add_noqa:
        # json and sarif show each diagnostic's checked fix; text marks the fixable ones (`[*]`). The fix stage
        # (LibCST) is imported and runs only for files with errors or warnings, and the cache keeps its results.
        refine = offer_fixes
    data = _read_stdin() if stdin else b""

    def once():
        nonlocal settings
        if watch:  # the configuration may have changed since the last check
            settings = load()
        if stdin:
            from fixinplace.stdin import STDIN, check_stdin  # deferred: standard input's check, only for `-`

            return check_stdin(data, stdin_filename or STDIN, settings, refine)
        progress = ProgressBar() if ProgressBar.wanted(quiet) and not watch else None
        try:
            return run_check(targets, settings, progress, refine)
        finally:
            if progress is not None:
                progress.close()

    def show(report) -> str:
        if statistics:
            from fixinplace.output.text import statistics as text_statistics  # deferred: an output format

            if output_format is OutputFormat.json:
                return _statistics_json(report, settings.unsafe_fixes)
            return text_statistics(report, settings.unsafe_fixes)
        return render(report, output_format.value, color=_use_color(output_file, color), quiet=quiet,
                      show_fixes=show_fixes, unsafe_fixes=settings.unsafe_fixes)

    if watch:
        _watch(once, show, targets, lambda: settings, output_file)
    report = once()
    if add_noqa:
        raise typer.Exit(_add_noqa(report, settings))
    _emit(show(report), output_file)
    code = report.exit_code
    raise typer.Exit(0 if exit_zero and code == 1 else code)


def _statistics_json(report, unsafe_fixes: bool) -> str:
    """`--statistics --format json`: `[{"code", "name", "count", "fixable"}]`, most frequent first (as Ruff)."""
    from fixinplace.output.text import by_code, fixable  # deferred: an output format, loaded only when used
    from fixinplace.rules import RULES_BY_CODE  # deferred: the rule table, which a clean check never loads

    rows = [{"code": code, "name": RULES_BY_CODE[code].name if code in RULES_BY_CODE else None, "count": len(ds),
             "fixable": all(fixable(d, unsafe_fixes) for d in ds)}
            for code, ds in by_code(report)]
    return json.dumps(rows, indent=2) + "\n"


def _add_noqa(report, settings) -> int:
    """`check --add-noqa`: write the comments, say how many, return the exit status."""
    from fixinplace.noqa import add_noqa  # deferred: the comment writer, loaded only by --add-noqa

    result = add_noqa(report.diagnostics, settings.max_file_size)
    for e in [*report.errors, *result.errors]:
        print(f"{printable_path(e.path)}: error: {e.message}", file=sys.stderr)
    print(f"Added {_plural(result.added, 'suppression comment')} to {_plural(len(result.files), 'file')}.")
    return 2 if report.errors or result.errors else 0


#: Seconds between two looks at the watched files' modification times.
WATCH_INTERVAL = 0.5


def _watch_snapshot(targets: List[str], settings) -> dict:
    """(modification time, size) of every file a check of `targets` would read, and of every configuration file
    that could apply (one created later is seen too)."""
    files = list(discover(targets, settings).files)
    start = common_folder(targets, Path.cwd())
    files += [str(folder / name) for folder in (start, *start.parents) for name in CONFIG_NAMES]
    if settings.config_file is not None:
        files.append(str(settings.config_file))
    snapshot = {}
    for path in files:
        try:
            st = os.stat(path)
            snapshot[path] = (st.st_mtime_ns, st.st_size)
        except OSError:
            snapshot[path] = None
    return snapshot


def _watch(once, show, targets: List[str], current_settings, output_file: Optional[Path]) -> None:
    """`check --watch`: check, then check again after each change to the files or the configuration (polling),
    until interrupted. A configuration that became invalid is reported (one line) and watched until it is fixed."""
    seen = None
    while True:
        current = _watch_snapshot(targets, current_settings())
        if current != seen:
            seen = current
            try:
                report = once()
            except typer.Exit:  # a configuration error, already printed: wait for the next change
                report = None
            if report is not None:
                stamp = time.strftime("%H:%M:%S")
                _emit(f"[{stamp}] Checked {_plural(len(report.files), 'file')}.\n" + show(report), output_file)
            print("Watching for file changes (Ctrl-C to stop).", file=sys.stderr, flush=True)
        time.sleep(WATCH_INTERVAL)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


FIX_EPILOG = """\b
Exit status:
  0  without --apply: nothing to fix; with --apply: no error or warning hazard remains
  1  without --apply: the diff is not empty; with --apply: some hazards remain (see the summary)
  2  a usage error, or a file that could not be read, parsed or written
`fix -` prints the fixed code on stdout and exits as with --apply.
"""


@app.command(cls=_Command, epilog=FIX_EPILOG)
def fix(
    paths: Annotated[
        Optional[List[str]],
        typer.Argument(metavar="PATH", help="Files and folders to fix (default: the current folder); `-` reads the "
                       "code from standard input and prints it fixed.", show_default=False),
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Rewrite the files (default: print the unified diff, change nothing).")
    ] = False,
    unsafe_fixes: UnsafeFixesOption = None,
    fix_style: FixStyleOption = None,
    device: DeviceOption = None,
    select: SelectOption = None,
    extend_select: ExtendSelectOption = None,
    ignore: IgnoreOption = None,
    extend_ignore: ExtendIgnoreOption = None,
    per_file_ignores: PerFileIgnoresOption = None,
    severity: SeverityOption = None,
    exclude: ExcludeOption = None,
    config: ConfigOption = None,
    no_cache: NoCacheOption = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary; only the diff and the error lines.")] = False,
    summary_only: Annotated[
        bool, typer.Option("--summary", help="Print the summary (on stdout) instead of the diff.")
    ] = False,
    show_fixes: Annotated[
        bool, typer.Option("--show-fixes", help="List each fix (path:line:col: CODE description) in the summary.")
    ] = False,
    output_file: Annotated[
        Optional[Path],
        typer.Option("--output-file", "-o", metavar="FILE", help="Write what goes to stdout (the diff, or the "
                     "summary with --apply, or the fixed code of `-`) to FILE.", show_default=False),
    ] = None,
    stdin_filename: StdinFilenameOption = None,
    verify: Annotated[
        bool,
        typer.Option("--verify", help="Run each file's original and patched code (see `fixinplace verify`) and keep "
                     "only the fixes of the files whose verification came out `verified`."),
    ] = False,
    timeout: TimeoutOption = 60.0,
    memory: MemoryOption = None,
) -> None:
    """Rewrite the hazardous in-place writes out of place: print the diff, or rewrite the files with --apply."""
    targets, stdin = _stdin_target(paths, stdin_filename)
    settings = _load_settings(config, targets, select, ignore, severity, exclude, unsafe_fixes=unsafe_fixes,
                              fix_style=fix_style, device=device, extend_select=extend_select, extend_ignore=extend_ignore,
                              per_file_ignores=per_file_ignores, cache=False if no_cache else None)
    if stdin:
        if verify:
            raise _fail("--verify needs files, not standard input")
        raise typer.Exit(_fix_stdin(_read_stdin(), stdin_filename, settings, output_file, quiet, show_fixes))
    from fixinplace.fix.remote import withdraw_dropped  # deferred: the fix stage (LibCST), loaded only by `fix`
    from fixinplace.fix.run import run_fix, settle  # deferred: the fix stage (LibCST), loaded only by `fix`

    if timeout <= 0:
        raise _fail("--timeout must be positive")
    memory_cap = _memory(memory)
    report = run_fix(targets, settings, apply=apply and not verify)
    if verify:
        _keep_verified(report, settings, apply, timeout, memory_cap)
        withdraw_dropped(report.outcomes)
        settle(report, settings)
    if not apply and not summary_only:
        _emit(b"".join(p.diff_bytes() for p in report.patches), output_file)
    for error in report.errors:
        print(f"{printable_path(error.path)}: error: {error.message}", file=sys.stderr)
    if not quiet:
        summary = "\n".join(_fix_summary(report, show_fixes, list_unsafe=show_fixes or not summary_only)) + "\n"
        if apply or summary_only:
            _emit(summary, output_file)
        else:
            sys.stderr.write(summary)
    raise typer.Exit(report.exit_code)


def _fix_stdin(data: bytes, stdin_filename: Optional[str], settings, output_file: Optional[Path], quiet: bool,
               show_fixes: bool) -> int:
    """`fix -`: the fixed code on stdout (the input unchanged when it cannot be fixed), the summary on stderr."""
    from fixinplace.stdin import STDIN, fix_stdin  # deferred: standard input's fix, only for `fix -`

    name = stdin_filename or STDIN
    result = fix_stdin(data, name, settings)
    _emit(result.output, output_file)
    if result.error is not None:
        print(f"{printable_path(name)}: error: {result.error.message}", file=sys.stderr)
    elif not quiet:
        fixed = len(result.applied)
        if result.applied:  # hazards, not fixes (one fix can clear several), as `fix PATH` counts them
            from fixinplace.fix.run import reported_hazards  # deferred: the fix stage (LibCST), only by `fix`

            try:
                fixed = max(len(reported_hazards(data, name, settings)) - len(result.remaining), 0)
            except SourceError:  # pragma: no cover - the code was just fixed
                pass
        lines = [f"Fixed {_plural(fixed, 'hazard')}"
                 + (f"; {len(result.remaining)} {'remains' if len(result.remaining) == 1 else 'remain'}"
                    if result.remaining else "") + "."]
        if show_fixes:
            lines += [_fix_line(name, d) for d in result.applied]
        for d in result.remaining:
            lines.append(f"{printable_path(name)}:{position(d.line, d.column, d.cell)}: {d.code} [{d.severity.value}] "
                         f"{d.message}")
        sys.stderr.write("\n".join(lines) + "\n")
    return result.exit_code


def _fix_line(path: str, d) -> str:
    """`  PATH:LINE:COL: CODE description` of a diagnostic's fix, for the summaries of `fix`."""
    return f"  {printable_path(path)}:{position(d.line, d.column, d.cell)}: {d.code} {d.fix.description if d.fix else 'fixed'}"


def _fix_summary(report, show_fixes: bool = False, list_unsafe: bool = True) -> List[str]:
    """The few lines that say what `fix` did (or would do), what remains, and what a non-zero exit status means;
    `show_fixes` lists the fixes, `list_unsafe` the hazards that only an unsafe fix would remove."""
    # Hazards, not fixes: one fix often clears several (one clone clears every write of the tensor), as `check`
    # counts them (`[*] N fixable`).
    applied, files, remaining = report.cleared, len(report.fixed_files), len(report.remaining)
    verb = "Fixed" if report.apply else "Would fix"
    line = f"{verb} {_plural(applied, 'hazard')} in {_plural(files, 'file')}"
    if remaining:
        line += f"; {remaining} {'remains' if remaining == 1 else 'remain'} (run `fixinplace check`)"
    lines = [line + "."]
    if show_fixes:
        for o in report.outcomes:
            lines += [_fix_line(d.path, d) for d in o.applied]
    unsafe_only = report.unsafe_only
    if unsafe_only:
        lines.append(
            f"{_plural(len(unsafe_only), 'remaining hazard')} {'has' if len(unsafe_only) == 1 else 'have'} only an "
            f"unsafe fix; review and apply with `--unsafe-fixes`{':' if list_unsafe else ' (--show-fixes lists them).'}"
        )
        lines += [_fix_line(d.path, d) for d in unsafe_only] if list_unsafe else []
    outside = report.outside
    if outside:
        files = sorted({p for _, paths in outside for p in paths})
        named = sorted({d.path for d, _ in outside})
        lines.append(
            f"{_plural(len(outside), 'remaining hazard')} {'is a call' if len(outside) == 1 else 'are calls'} whose "
            f"write is in a file this run does not include; `fix` repairs it there when that file is in the run too: "
            f"`fixinplace fix {' '.join(shlex.quote(p) for p in named + files)}`:")
        lines += [f"  {d.path}:{d.line}: {d.code} writes in {', '.join(paths)}" for d, paths in outside]
    if report.errors:
        lines.append(f"{_plural(len(report.errors), 'path')} could not be fixed (see the errors above).")
    elif report.exit_code == 1:
        if not report.apply and report.patches:
            lines.append("Exit status 1: there are fixes to make; `fixinplace fix --apply` writes them.")
        else:
            lines.append("Exit status 1: some hazards have no fix that `fix` applies; see `fixinplace check`.")
    return lines


def _keep_verified(report, settings, apply: bool, timeout: float, memory: Optional[int]) -> None:
    """`fix --verify`: verify every patched file. A file whose fixes verify together keeps them all; otherwise each
    fix is verified alone, and the file keeps the fixes that verified (verified again together), the others staying
    in `remaining`. With `apply`, the kept patches are written."""
    from fixinplace.fix.checked import fix_text  # deferred: the fix stage (LibCST), loaded only by `fix`
    from fixinplace.fix.files import FileError, PatchError, make_patch  # deferred: the fix stage, only by `fix`
    from fixinplace.fix.run import write_outcome  # deferred: the fix stage (LibCST), loaded only by `fix`
    from fixinplace.verify import (  # deferred: the verifier, loaded only by --verify
        outcome_pair, pair_of, patched_texts, verify_pairs)

    report.apply = apply
    for o in report.outcomes:
        if o.patch is not None and is_notebook(o.path):
            # Its patch is of the notebook's JSON, not of the code the child runs; `fixinplace verify` runs that.
            o.undo(FileError(o.path, "fix --verify does not support notebooks yet: run `fixinplace verify` on "
                                     "the notebook, then `fixinplace fix --apply`"))
            report.errors.append(o.error)
    changed = [o for o in report.outcomes if o.patch is not None and o.patch.changed]
    # A file whose call's hazard was repaired in another file runs with that file patched: the repair is proved
    # through it (a file changed by such repairs alone has its callers' results).
    texts = patched_texts(changed)
    callers = [o for o in report.outcomes if o.error is None and o.elsewhere and not is_notebook(o.path)
               and not (o.patch is not None and o.patch.changed)]
    verification = verify_pairs([outcome_pair(o, texts, settings) for o in changed + callers],
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
                o.undo(FileError(o.path, one_line(e)))
                report.errors.append(o.error)
                continue
            applied = {_hazard(k) for k in result.applied}
            dropped = [d for d in o.applied if _hazard(d) not in applied]
            o.remaining = blocking(dropped) + o.remaining
            o.applied = kept = list(result.applied)
            o.exact = False  # `settle` counts what remains
        if kept is None:
            rows = verification.results if o.path not in subsets else together.results
            reasons = [r["reason"] for r in rows if r["path"] == o.path and r["status"] != "verified"]
            if o.path not in singles:
                print(f"{printable_path(o.path)}: fix not applied: verification {status or 'gave no result'}"
                      + (f": {reasons[0]}" if reasons else ""), file=sys.stderr)
            elif o.path in subsets:
                print(f"{printable_path(o.path)}: fixes not applied: each verified alone, not together"
                      + (f": {reasons[0]}" if reasons else ""), file=sys.stderr)
            o.remaining = blocking(o.applied) + o.remaining
            o.applied = []
            o.patch = None
            o.exact = False
            continue
        for d in kept:
            print(f"{printable_path(o.path)}:{d.line}: {d.code} verified ({d.fix.description if d.fix else 'fix'})", file=sys.stderr)
        if apply:
            write_outcome(o, report)


_UNITS = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}


def _memory(value: Optional[str]) -> Optional[int]:
    """The bytes of a --memory SIZE (`4G`, `512M`, `1.5GiB`; None for `none`), its default when not given."""
    from fixinplace.verify.runner import DEFAULT_MEMORY, MIN_MEMORY, size_text  # deferred: the verifier, not for check

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


VERIFY_EPILOG = """\b
Exit status:
  0  every result verified (skipped results alone also exit 0, with a note)
  1  a result failed (the patched code behaved differently)
  2  a usage error, or a file that could not be read or fixed
"""

TRACE_EPILOG = """\b
Exit status:
  N  the program's own exit status when it is not 0
  1  the program exited 0 and a hazard was found
  2  the script or module cannot be found, or the report file cannot be written
"""


@app.command(cls=_Command, epilog=VERIFY_EPILOG)
def verify(
    paths: Annotated[
        List[str],
        typer.Argument(metavar="PATH", help="Files (or folders) whose fixes to verify.", show_default=False),
    ],
    entry: Annotated[
        Optional[str],
        typer.Option("--entry", metavar="NAME", help="Function to call in the original and the patched module "
                     "(zero arguments, or the --inputs factory's); __main__: run the whole file as a script.",
                     show_default=False),
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
    output_file: OutputFileOption = None,
    color: ColorOption = ColorChoice.auto,
) -> None:
    """Prove each fix: run the original and the patched code in a child process and compare outputs, gradients and
    visible side effects.

    Without --entry, each changed function is called on its declared inputs (a `# fixinplace: inputs=` comment or
    [tool.fixinplace.verify]), else on synthesised float64 tensors, else through main(), else (a script, a
    notebook) by running the whole file, as changed module-level code is. Exit 0 when every result is verified (skipped results alone also exit 0, with a note), 1 when any failed,
    2 on usage errors. User code runs only in the child process; the patched code is never written to the file.
    """
    from fixinplace.fix.files import PatchError  # deferred: the fix stage (LibCST), not loaded by check
    from fixinplace.verify import (  # deferred: only `verify` needs them
        SCRIPT_ENTRY, defines, drivers, fix_pair, fix_pairs, verify_pairs)
    from fixinplace.verify.report import render_json, render_text  # deferred: the verifier, only for `verify`

    if inputs and not entry:
        raise _fail("--inputs needs --entry")
    if timeout <= 0:
        raise _fail("--timeout must be positive")
    memory_cap = _memory(memory)
    targets = list(paths)
    settings = _load_settings(None, targets, None, None, None, None, unsafe_fixes=unsafe_fixes)
    found = discover(targets, settings)
    errors = [f"{printable_path(e.path)}: error: {e.message}" for e in found.errors]
    pairs = {}  # path -> its pair, in the order found
    notebooks = {}  # path -> its joined code cells (`fixinplace.verify.notebooks`)
    for path in found.files:
        pairs[path] = None
        if not is_notebook(path):
            continue  # below, all together: a call's hazard may be repaired in another file
        from fixinplace.verify.notebooks import notebook_code  # deferred: the verifier, only for `verify`

        try:
            notebooks[path] = notebook_code(path, settings.max_file_size)
            pairs[path] = fix_pair(path, notebooks[path].text, settings)
        except (SourceError, PatchError, OSError) as e:
            errors.append(f"{printable_path(path)}: error: {one_line(e)}")
    fixed, failures = fix_pairs([path for path in pairs if path not in notebooks], settings)
    errors += [f"{printable_path(e.path)}: error: {e.message}" for e in failures]
    pairs.update((pair.path, pair) for pair in fixed)
    pairs = [pair for pair in pairs.values() if pair is not None]
    for name in (entry, inputs):
        if not name or name == SCRIPT_ENTRY or ":" in name:
            continue
        through = drivers(pairs, name)  # a file without it runs through a file of the run that has it and imports it
        for pair in pairs:
            if (pair.original != pair.patched or pair.others) and not defines(pair.original, name) \
                    and os.path.realpath(pair.path) not in through:
                raise _fail(f"{pair.path}: no top-level {name!r} in this file")
    report = verify_pairs(pairs, entry=entry, inputs=inputs, device=device.value, timeout=timeout, memory=memory_cap)
    if notebooks:
        from fixinplace.verify.notebooks import place_results  # deferred: the verifier, only for `verify`

        for path, code in notebooks.items():
            place_results(report.results, path, code)
    if output_format is VerifyFormat.json:
        _emit(render_json(report), output_file)
    else:
        _emit(render_text(report, color=_use_color(output_file, color)), output_file)
    for note in report.notes:
        print(f"note: {note}", file=sys.stderr)
    skipped = sum(1 for r in report.results if r["status"] == "skipped")
    if skipped:
        print(f"note: {_plural(skipped, 'result')} skipped (not proved; see the reasons)", file=sys.stderr)
    for line in errors:
        print(line, file=sys.stderr)
    raise typer.Exit(2 if errors else report.exit_code)


@app.command(cls=_Command)
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
    from fixinplace.lsp.server import serve  # deferred: the language server (pygls), only for `lsp`

    serve(tcp)


class TraceFormat(str, Enum):
    text = "text"
    json = "json"


@app.command(cls=_Command, epilog=TRACE_EPILOG, context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "allow_interspersed_args": False})
def trace(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Argument(metavar="SCRIPT|MODULE", help="The script or notebook to run (or, with -m, the module), then its arguments.", show_default=False)
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
    from fixinplace.trace.runner import TargetError, run_traced  # deferred: the tracer (torch), only for `trace`

    try:
        code = run_traced(target, list(ctx.args), module=module, output_format=output_format.value,
                          output_file=str(output_file) if output_file is not None else None)
    except TargetError as e:
        raise _fail(str(e)) from None
    raise typer.Exit(code)


class RuleFormat(str, Enum):
    text = "text"
    json = "json"


@app.command(cls=_Command)
def rule(
    code: Annotated[
        Optional[str], typer.Argument(metavar="CODE", help="The rule's code (FIP101) or name (saved-tensor-mutated).",
                                      show_default=False),
    ] = None,
    all_rules: Annotated[bool, typer.Option("--all", help="Explain every rule.")] = False,
    output_format: Annotated[
        RuleFormat, typer.Option("--output-format", "--format", help="Output format.", case_sensitive=False)
    ] = RuleFormat.text,
    output_file: OutputFileOption = None,
) -> None:
    """Explain a rule (or every rule, with --all): what it finds, why it matters, and examples."""
    from fixinplace.rule_text import rule_json, rule_text  # deferred: the rules' explanations, only for `rule`
    from fixinplace.rules import RULES, RULES_BY_CODE  # deferred: the rule table, which a clean check never loads

    if all_rules == (code is not None):
        raise _fail("give one rule code (fixinplace rule FIP101) or --all")
    if all_rules:
        chosen = list(RULES)
    else:
        wanted = code.strip()
        found = RULES_BY_CODE.get(wanted.upper()) or next((r for r in RULES if r.name == wanted.lower()), None)
        if found is None:
            raise _fail(f"unknown rule {code!r} (known: {', '.join(r.code for r in RULES)})")
        chosen = [found]
    if output_format is RuleFormat.json:
        rows = [rule_json(r) for r in chosen]
        _emit(json.dumps(rows if all_rules else rows[0], indent=2) + "\n", output_file)
    else:
        _emit("\n".join(rule_text(r) for r in chosen), output_file)


@app.command(cls=_Command)
def version(
    output_format: Annotated[
        RuleFormat, typer.Option("--output-format", help="Output format.", case_sensitive=False)
    ] = RuleFormat.text,
) -> None:
    """Print the version."""
    if output_format is RuleFormat.json:
        print(json.dumps({"version": __version__}))
    else:
        print(f"{PROG} {__version__}")


class Shell(str, Enum):
    bash = "bash"
    zsh = "zsh"
    fish = "fish"


#: The environment variable the completion scripts set to ask the program for completions.
COMPLETE_VAR = "_FIXINPLACE_COMPLETE"


@app.command(name="generate-shell-completion", cls=_Command)
def generate_shell_completion(
    shell: Annotated[Shell, typer.Argument(metavar="SHELL", help="bash, zsh or fish.", case_sensitive=False)],
) -> None:
    """Print the shell's completion script (e.g. `eval "$(fixinplace generate-shell-completion bash)"`)."""
    print(get_completion_script(prog_name=PROG, complete_var=COMPLETE_VAR, shell=shell.value).rstrip("\n"))


def _clean_message(message: str) -> str:
    """A click/typer usage message without the type-checking library's wording."""
    message = message.replace("Value error, ", "")
    message = re.sub(r"Input should be a valid (integer|number)[^(]*", r"expected \1 ", message)
    return one_line(message)


def run(argv: Optional[List[str]] = None) -> int:
    """Run the command line and return its exit code (usage errors: one line on stderr, code 2)."""
    command = typer.main.get_command(app)
    if os.environ.get(COMPLETE_VAR):  # a completion script asking for completions
        completion_init()
    try:
        rv = command.main(args=argv, prog_name=PROG, standalone_mode=False)
    except UsageError as e:
        hint = ""
        ctx = getattr(e, "ctx", None)
        if ctx is not None:
            hint = f" (see '{ctx.command_path} --help')"
        print(f"{PROG}: error: {_clean_message(e.format_message())}{hint}", file=sys.stderr)
        return 2
    except ClickException as e:
        print(f"{PROG}: error: {_clean_message(e.format_message())}", file=sys.stderr)
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
