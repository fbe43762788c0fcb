"""The judge and its runners: user code runs only in a runner, a process forked from the judge for one job.

The judge (the child's worker, `fixinplace.verify.child`) imports torch and never loads user code; it decides a
job's result (`job.verify_job`), comparing with its own, untouched torch. Every step that runs user code (one side
of a job, the finite differences, the search for input shapes) is a call to the job's runner, which runs it and
sends back what it produced as plain data (`wire`). The runner holds no end of the channel to the parent process,
and what user code does to its interpreter (replacing `torch.allclose`, the comparison, `json`) stays in the
runner, which ends with its job.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import struct

from fixinplace.verify import steps, wire


class RunnerDied(Exception):
    """The runner ended before it answered (user code crashed it, called `os._exit`, or was killed)."""

    def __init__(self, code: int) -> None:
        super().__init__(f"exited with code {code}")
        self.code = code


class RemoteError(Exception):
    """A step raised in the runner (an error of the verifier, not of the user code, which each step catches)."""


def _serve(requests: int, replies: int, key: bytes) -> None:
    """The runner's loop: run each requested step, send its value (or the error it raised)."""
    send = wire.sender(replies, key)
    reader = os.fdopen(requests, "rb")
    while True:
        head = reader.read(8)
        if len(head) < 8:
            return
        (size,) = struct.unpack("<Q", head)
        name, args = pickle.loads(reader.read(size))  # from the judge, which forked this process
        try:
            value = {"value": getattr(steps, name)(*args)}
        except BaseException as e:  # a step catches the user code's errors itself: this is the verifier's own
            value = {"raise": f"{type(e).__name__}: {e}"}
        send(value)


class Runner:
    """A forked runner for one job: `call(step, *args)` runs `fixinplace.verify.steps.<step>` there."""

    def __init__(self, keep_closed: tuple[int, ...] = (), setup=None) -> None:
        self.key = os.urandom(32)
        req_r, self._req = os.pipe()
        self._rep, rep_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # pragma: no cover - the runner (coverage does not follow forks)
            code = 0
            try:
                os.close(self._req)
                os.close(self._rep)
                for fd in keep_closed:  # the channel to the parent: out of the user code's reach
                    os.close(fd)
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.close(null)
                if setup is not None:
                    setup()
                _serve(req_r, rep_w, self.key)
            except BaseException:
                code = 70
            os._exit(code)
        os.close(req_r)
        os.close(rep_w)
        self.status: int | None = None
        self.failure: Exception | None = None  # RunnerDied or wire.Tampered: no later answer can be trusted

    def call(self, step: str, *args):
        """The value `step(*args)` returned in the runner. Raises RunnerDied, wire.Tampered or RemoteError."""
        if self.failure is not None:
            raise self.failure
        data = pickle.dumps((step, args))
        try:
            os.write(self._req, struct.pack("<Q", len(data)))
            view = memoryview(data)
            while view:
                view = view[os.write(self._req, view):]
            self._wait_readable()
            reply = wire.receive(self._rep, self.key)
            if not isinstance(reply, dict) or not ({"value", "raise"} & set(reply)):
                raise wire.Tampered("a message that verify did not write")
        except (EOFError, BrokenPipeError):
            self.failure = RunnerDied(self.exit_code())
            raise self.failure from None
        except wire.Tampered as e:
            self.failure = e
            raise
        if "raise" in reply:
            raise RemoteError(reply["raise"])
        return reply["value"]

    def _wait_readable(self) -> None:
        """Wait for the runner's answer; raise EOFError as soon as the runner has ended without one (a process it
        started may hold the pipe open, so its end would never be seen)."""
        poller = select.poll()
        poller.register(self._rep, select.POLLIN)
        while not poller.poll(100):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                if not poller.poll(0):
                    raise EOFError("the runner ended")

    def exit_code(self) -> int:
        """How the runner ended (a negative signal number when killed), waiting for it."""
        if self.status is None:
            _, status = os.waitpid(self.pid, 0)
            self.status = os.waitstatus_to_exitcode(status)
        return self.status

    def close(self) -> None:
        """Kill the runner (what it started is the keeper's to kill) and reap it."""
        for fd in (self._req, self._rep):
            try:
                os.close(fd)
            except OSError:
                pass
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.exit_code()

    def __enter__(self) -> "Runner":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
