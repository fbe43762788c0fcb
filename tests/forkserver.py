"""A fork server for the tests' long-lived children: `python -m fixinplace lsp` and verify's child.

Most of the suite's time went into children importing the same heavy modules: torch (about 3 s of CPU here) in
every `verify` command's child, pygls's LSP types and LibCST (about 1 s) in every language server. One server per
test process imports them once; `forkclient.py ARGS` (a bare interpreter, no heavy import) passes its standard
streams, working directory, environment and argv over a Unix socket, and the server forks a process that takes
them and runs `python ARGS` as the interpreter would (`-m MODULE` or a script). The client exits with that
process's status; when the client dies first (killed by its caller), the process is killed too. It is a real
process running the real entry point, with its own pid, streams and environment; only the imports are shared.

The tests that watch how verify contains its child (process trees, memory caps, killed keepers) run it fresh:
`FIXINPLACE_VERIFY_LAUNCHER` is removed from their environment.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

CLIENT = str(Path(__file__).with_name("forkclient.py"))
ADDRESS_VARIABLE = "FIXINPLACE_TEST_FORKSERVER"

SERVER = r'''
import array, json, os, select, signal, socket, struct, sys
sys.path.insert(0, TESTS)
from runmain import run_as_main  # noqa: E402
del sys.path[0]
# The heavy imports, made once; none reads the environment at import.
import torch  # noqa: F401
import libcst, libcst.matchers  # noqa: F401
import lsprotocol.types, pygls.lsp.server  # noqa: F401
import codemods  # noqa: F401
import fixinplace.fix.checked  # noqa: F401
import fixinplace.cli, fixinplace.lsp.server, fixinplace.analysis.interpreter  # noqa: F401,E401

listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(sys.argv[1])
listener.listen(64)
signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel


def receive(conn):
    fds = array.array("i")
    head, ancillary, _, _ = conn.recvmsg(4, socket.CMSG_LEN(3 * fds.itemsize))  # the streams come with the head
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
    while len(head) < 4:
        head += conn.recv(4 - len(head))
    (size,) = struct.unpack("<I", head)
    data = b""
    while len(data) < size:
        data += conn.recv(size - len(data))
    return json.loads(data), list(fds)


def run(request, fds):
    for target, fd in enumerate(fds[:3]):
        os.dup2(fd, target)
    for fd in fds:
        if fd > 2:
            os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    run_as_main(request["argv"], request["cwd"])


while True:
    conn, _ = listener.accept()
    if os.fork():
        conn.close()
        continue
    # The handler: one per client.
    listener.close()
    wake_r, wake_w = os.pipe()  # a byte arrives when the child ends (before it is forked: no race)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    request, fds = receive(conn)
    child = os.fork()
    if child == 0:
        conn.close()
        signal.set_wakeup_fd(-1)
        os.close(wake_r)
        os.close(wake_w)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        run(request, fds)
    for fd in fds:
        os.close(fd)
    conn.sendall(json.dumps({"pid": child}).encode() + b"\n")
    status = None
    while status is None:
        ready, _, _ = select.select([conn, wake_r], [], [], 1.0)
        if wake_r in ready:
            os.read(wake_r, 512)
        if conn in ready and not conn.recv(1):  # the client is gone: so is its process
            try:
                os.kill(child, signal.SIGKILL)
            except ProcessLookupError:
                pass
        pid, raw = os.waitpid(child, os.WNOHANG)
        if pid:
            status = os.waitstatus_to_exitcode(raw)
    try:
        conn.sendall(json.dumps({"status": status}).encode() + b"\n")
    except OSError:
        pass
    os._exit(0)
'''


class ForkServer:
    """A fork server process; it serves once its imports are done (until then clients run fresh interpreters)."""

    def __init__(self) -> None:
        self.folder = tempfile.mkdtemp(prefix="fixinplace-forks-")
        self.address = os.path.join(self.folder, "socket")
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[1])
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        for name in (ADDRESS_VARIABLE, LAUNCHER_VARIABLE):
            env.pop(name, None)
        tests = repr(str(Path(__file__).resolve().parent))
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER.replace("TESTS", tests), self.address],
                                     stdout=subprocess.DEVNULL, env=env, start_new_session=True)

    def stop(self) -> None:
        """End the server (its handlers and their processes end with their clients)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.folder, ignore_errors=True)


LAUNCHER_VARIABLE = "FIXINPLACE_VERIFY_LAUNCHER"


def start() -> ForkServer | None:
    """Start this test process's fork server and point the children at it: the language servers the tests start
    through `forkclient.py`, and verify's child (`FIXINPLACE_VERIFY_LAUNCHER`). None where fork or Unix sockets
    are missing, or with FIXINPLACE_TEST_FRESH=1 (every child fresh)."""
    if not hasattr(os, "fork") or not hasattr(socket, "AF_UNIX"):
        return None
    if os.environ.get("FIXINPLACE_TEST_FRESH", "") not in ("", "0"):
        return None
    server = ForkServer()
    os.environ[ADDRESS_VARIABLE] = server.address
    os.environ[LAUNCHER_VARIABLE] = f"{sys.executable} {CLIENT}"
    return server
