"""`python forkclient.py ARGS`: run `python ARGS` as a fork of the tests' fork server (`forkserver.py`), with this
process's standard streams, working directory and environment, and exit with its status. Without a server
(`FIXINPLACE_TEST_FORKSERVER` unset) it becomes `python ARGS` itself."""

import array
import json
import os
import socket
import struct
import sys
import time

address = os.environ.get("FIXINPLACE_TEST_FORKSERVER", "")
conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
deadline = time.monotonic() + (30 if address else 0)
while True:
    try:
        conn.connect(address)
        break
    except OSError:
        # The server is still importing (its socket appears when it is done): waiting costs less than a fresh
        # interpreter importing the same modules beside it. None, or a dead one: a fresh interpreter.
        if time.monotonic() > deadline:
            os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
        time.sleep(0.05)
message = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
conn.sendmsg([struct.pack("<I", len(message))], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [0, 1, 2]))])
conn.sendall(message)
for fd in (0, 1, 2):  # the forked process holds them now: an end of file reaches the caller when it exits
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, fd)
    os.close(null)
reader = conn.makefile("rb")
reader.readline()  # {"pid": ...}
line = reader.readline()
status = json.loads(line)["status"] if line else 1
os._exit(128 - status if status < 0 else status)  # killed by a signal: as a shell reports it
