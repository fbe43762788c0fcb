"""The `fixinplace` command line.

    fixinplace check [PATH...] [--format text|json|sarif|github] [--select CODES] [--ignore CODES]
                     [--severity info|warning|error] [--exclude GLOB] [--config PYPROJECT] [--quiet]
                     [--output-file FILE] [--jobs N]
    fixinplace --version

Exit codes of `check`: 0 no error or warning reported; 1 some; 2 a usage or configuration error, or a path or
file that could not be checked (reported after every other file was checked). Usage errors are one line on
stderr. Only the standard library, typer and fixinplace's own check modules are imported here (no libcst, pygls
or torch), to keep start-up fast.

Commands planned by later issues, not implemented here: `fix`, `verify`, `lsp`, `trace`. Each will be a function
registered with `@app.command()` below `check`, importing its heavy dependencies inside the function.
"""

from __future__ import annotations

import os
import sys
from enum import Enum
from pathlib import Path
from typing import List, Optional

import typer

from fixinplace import __version__

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


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def _fail(message: str) -> typer.Exit:
    """Print a one-line error and return the exit (code 2) to raise."""
    print(f"{PROG}: error: {_one_line(message)}", file=sys.stderr)
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


@app.command()
def check(
    paths: Annotated[
        Optional[List[str]],
        typer.Argument(metavar="PATH", help="Files and folders to check (default: the current folder).", show_default=False),
    ] = None,
    output_format: Annotated[
        OutputFormat, typer.Option("--format", help="Report format.", case_sensitive=False)
    ] = OutputFormat.text,
    select: Annotated[
        Optional[List[str]],
        typer.Option("--select", metavar="CODES", help="Comma-separated rule codes or prefixes to report (FIP1, ALL); replaces the configured selection.", show_default=False),
    ] = None,
    ignore: Annotated[
        Optional[List[str]],
        typer.Option("--ignore", metavar="CODES", help="Comma-separated rule codes or prefixes not to report.", show_default=False),
    ] = None,
    severity: Annotated[
        Optional[SeverityChoice],
        typer.Option("--severity", help="Lowest severity to report [default: warning].", case_sensitive=False, show_default=False),
    ] = None,
    exclude: Annotated[
        Optional[List[str]],
        typer.Option("--exclude", metavar="GLOB", help="Skip matching files and folders (repeatable; added to the defaults and the config).", show_default=False),
    ] = None,
    config: Annotated[
        Optional[Path],
        typer.Option("--config", metavar="PYPROJECT", help="Read [tool.fixinplace] from this file instead of the nearest pyproject.toml.", show_default=False),
    ] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Text format: only the diagnostic and error lines, no source or summary.")
    ] = False,
    output_file: Annotated[
        Optional[Path],
        typer.Option("--output-file", "-o", metavar="FILE", help="Write the report to FILE instead of stdout.", show_default=False),
    ] = None,
    jobs: Annotated[
        Optional[int],
        typer.Option("--jobs", "-j", metavar="N", help="Worker processes (0: one per CPU) [default: 0].", show_default=False),
    ] = None,
) -> None:
    """Report the in-place tensor writes that break (or may break) autograd."""
    from fixinplace.engine import run_check
    from fixinplace.output import render
    from fixinplace.settings import ConfigError, load_settings

    targets = list(paths) if paths else ["."]
    try:
        settings = load_settings(config, targets).override(
            select=select,
            ignore=ignore,
            severity=severity.value if severity is not None else None,
            extend_exclude=exclude,
            jobs=jobs,
        )
    except ConfigError as e:
        raise _fail(str(e)) from None
    report = run_check(targets, settings)
    text = render(report, output_format.value, color=_use_color(output_file), quiet=quiet)
    if output_file is not None:
        try:
            output_file.write_text(text, encoding="utf-8")
        except OSError as e:
            raise _fail(f"{output_file}: cannot write: {e.strerror or e}") from None
    else:
        try:
            sys.stdout.write(text)
            sys.stdout.flush()
        except BrokenPipeError:  # `fixinplace check . | head`
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
    raise typer.Exit(report.exit_code)


# Later issues add `fix`, `verify`, `lsp` and `trace` here, as further `@app.command()` functions.


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
        print(f"{PROG}: error: {_one_line(e.format_message())}{hint}", file=sys.stderr)
        return 2
    except ClickException as e:
        print(f"{PROG}: error: {_one_line(e.format_message())}", file=sys.stderr)
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
