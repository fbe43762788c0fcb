"""`python -m fixinplace ARGS` as a fork of an interpreter that imported LibCST once.

Most of the suite's time was children starting: each `check` with fixable marks and each `fix` imports LibCST
(0.5 s) before doing 0.1 s of work. A warm server, one per test process, imports the heavy modules that read no
environment at import (LibCST, the codemods, the fix stage, the analysis and the command line) and forks a child
per command: the child takes the command's working directory, environment, argv and standard streams, runs the `fixinplace` module as `-m` does, and
exits with its status. It is a real process running the real command line; only the import of LibCST is shared.

`trace` commands go to a second server that has also imported torch (the traced program runs in the command's
own process). A command whose interpreter must differ (Python flags, another hash seed or other PYTHON* variables, dropped
capabilities) or whose imports are under test runs in a fresh interpreter instead (`clirun.cli` decides).
"""

from __future__ import annotations

import io
import json
import locale
import os
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SERVER = r'''
import json, os, signal, sys
sys.path.insert(0, TESTS)
from runmain import run_as_main  # noqa: E402
del sys.path[0]
import libcst, libcst.matchers  # noqa: F401 - the heavy imports, made once
import codemods  # noqa: F401
import fixinplace.fix.checked  # noqa: F401
import fixinplace.cli, fixinplace.engine, fixinplace.analysis.components  # noqa: F401,E401 - read no environment at import
import fixinplace.analysis.interpreter, fixinplace.output.text, fixinplace.discovery, fixinplace.fixable  # noqa: F401,E401
import importlib.metadata  # noqa: F401 - the version lookup
if sys.argv[1:] == ["torch"]:
    import torch  # noqa: F401 - for `trace`, which runs the program (and torch) in its own process

requests, replies = sys.stdin.buffer, os.fdopen(os.dup(1), "w", buffering=1)
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 1)
for line in requests:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            stdout = os.open(request["stdout"], os.O_WRONLY)
            stderr = os.open(request["stderr"], os.O_WRONLY)
            os.dup2(os.open(request["stdin"], os.O_RDONLY) if request.get("stdin") else null, 0)
            os.dup2(stdout, 1)
            os.dup2(stderr, 2)
        except BaseException:
            os._exit(1)
        run_as_main(["-m", "fixinplace", *request["args"]], request["cwd"])
    replies.write(json.dumps({"pid": pid}) + "\n")
    _, status = os.waitpid(pid, 0)
    replies.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\n")
'''


TESTS = str(Path(__file__).resolve().parent)


class WarmServer:
    """The warm interpreter of this test process (started at the first command, ended with the process)."""

    def __init__(self, env: dict, torch: bool = False) -> None:
        self.env = env
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER.replace("TESTS", repr(TESTS)),
                                      *(["torch"] if torch else [])],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, start_new_session=True)
        self.lock = threading.Lock()

    def run(self, args: tuple[str, ...], cwd: Path, env: dict, timeout: float,
            encoding: str | None, input: str | None = None) -> subprocess.CompletedProcess:
        """Run one command in a fork of the server, as `subprocess.run(..., capture_output=True, text=True)`
        (`input`: its standard input, else the null device)."""
        with self.lock, tempfile.TemporaryDirectory(prefix="fixinplace-cli-") as folder:
            out, err = Path(folder, "stdout"), Path(folder, "stderr")
            out.touch()
            err.touch()
            request = {"args": list(args), "cwd": str(cwd), "env": env, "stdout": str(out), "stderr": str(err)}
            if input is not None:
                stdin = Path(folder, "stdin")
                # As subprocess.run(input=..., text=True) writes it: universal newlines become os.linesep.
                stdin.write_bytes(input.replace("\n", os.linesep).encode(encoding or locale.getpreferredencoding(False)))
                request["stdin"] = str(stdin)
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            pid = json.loads(self.proc.stdout.readline())["pid"]
            reply: list = []
            reader = threading.Thread(target=lambda: reply.append(self.proc.stdout.readline()), daemon=True)
            reader.start()
            reader.join(timeout)
            argv = [sys.executable, "-m", "fixinplace", *args]
            if reader.is_alive():
                os.killpg(pid, signal.SIGKILL)
                reader.join()
                raise subprocess.TimeoutExpired(argv, timeout, _text(out, encoding), _text(err, encoding))
            status = json.loads(reply[0])["status"]
            return subprocess.CompletedProcess(argv, status, _text(out, encoding), _text(err, encoding))


def _text(path: Path, encoding: str | None) -> str:
    """A captured stream decoded as `subprocess.run(text=True, encoding=...)` decodes it (universal newlines)."""
    data = path.read_bytes()
    return io.TextIOWrapper(io.BytesIO(data), encoding=encoding or locale.getpreferredencoding(False)).read()


_servers: dict[str, WarmServer] = {}


def warm_run(args: tuple[str, ...], cwd: Path, env: dict, timeout: float,
             encoding: str | None, input: str | None = None) -> subprocess.CompletedProcess | None:
    """The command run by the warm server whose interpreter matches `env` (None: it needs a fresh one). `trace`
    runs the traced program in its own process: its server has imported torch too."""
    python = {k: v for k, v in env.items() if k.startswith("PYTHON")}
    torch = bool(args) and args[0] == "trace"
    key = json.dumps([python, torch], sort_keys=True)
    server = _servers.get(key)
    if server is None or server.proc.poll() is not None:
        if len(_servers) >= 3 and key not in _servers:
            return None  # an unusual interpreter: not worth a server of its own
        server = _servers[key] = WarmServer(env, torch)
    return server.run(args, cwd, env, timeout, encoding, input)
