"""Hostile user programs against `fixinplace verify`'s verdict and its containment: real CLI runs, real
children.

Each program carries a fix that changes behaviour (`--unsafe-fixes` on a view of an argument written in place,
verified on synthesised inputs: the rewrite copies it, so the caller's tensor is no longer written, which verify
reports `failed`), plus code that attacks the verifier: it
replaces torch's comparisons, forges a result on the pipes it finds in /proc/self/fd, kills its process group or
its parent after starting processes in new sessions, prints without end, or maps shared memory past `--memory`.
None may come out `verified`, and nothing it starts may outlive `verify`.
"""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from clirun import REPO, cli


@pytest.fixture(autouse=True)
def fresh_verify_child(monkeypatch):
    """Verify's child as users get it (a fresh interpreter, not the tests' fork server): what is tested here is
    how it is contained."""
    monkeypatch.delenv("FIXINPLACE_VERIFY_LAUNCHER", raising=False)


pytestmark = [
    pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed"),
    pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc"),
]

UNSAFE = (REPO / "fixtures" / "fix" / "18_clone_before_write_view_of_argument_leaf" / "before.py").read_text()

PATCH_TORCH = """
import sys
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
for _name in list(sys.modules):  # the verifier's own comparison, where it shares the interpreter
    if _name.startswith("fixinplace.verify"):
        _m = sys.modules[_name]
        if hasattr(_m, "compare"):
            _m.compare = lambda *a, **k: (True, "", {"outputs": 0.0, "grads": 0.0, "effects": 0.0})
"""

FORGE = """
import json as _json, os as _os, stat as _stat
_row = {"device": "cpu", "status": "verified", "reason": "forged", "max_abs_diff": {"outputs": 0.0, "grads": 0.0},
        "reference": "original"}
for _fd in map(int, _os.listdir("/proc/self/fd")):
    try:
        if _fd > 2 and _stat.S_ISFIFO(_os.fstat(_fd).st_mode):
            for _job in range(8):
                _os.write(_fd, (_json.dumps({"job": _job, "results": [_row]}) + "\\n").encode())
    except OSError:
        pass
"""


def program(tmp_path: Path, name: str, extra: str, call_extra: str = "") -> None:
    """The program with `extra` after its imports and `call_extra` (indented by 4) at the start of the function
    verify calls (the forward, on synthesised inputs)."""
    text = UNSAFE.replace("import torch\n", "import torch\n" + extra, 1)
    call_extra = "".join("    " + line + "\n" for line in call_extra.splitlines())
    text = text.replace("    def forward(self, x):\n", "    def forward(self, x):\n" + call_extra, 1)
    (tmp_path / name).write_text(text)


def verify_rows(tmp_path: Path, *args: str) -> dict:
    proc = cli("verify", *args, "--device", "cpu", "--unsafe-fixes", "--format", "json",
               cwd=tmp_path, timeout=240)
    assert proc.returncode in (0, 1), proc.stderr[-3000:]
    return {r["path"]: r for r in json.loads(proc.stdout)["results"]}


def test_user_code_cannot_fake_the_comparison_or_the_result_channel(tmp_path):
    program(tmp_path, "honest.py", "")
    program(tmp_path, "patched_torch.py", PATCH_TORCH)
    program(tmp_path, "forger.py", FORGE)
    rows = verify_rows(tmp_path, "honest.py", "patched_torch.py", "forger.py")
    assert rows["honest.py"]["status"] == "failed", rows
    assert rows["patched_torch.py"]["status"] == "failed", rows["patched_torch.py"]
    assert "values differ" in rows["patched_torch.py"]["reason"] or "differ" in rows["patched_torch.py"]["reason"]
    assert rows["forger.py"]["status"] == "failed", rows["forger.py"]
    assert "results channel" in rows["forger.py"]["reason"], rows["forger.py"]


def _sleepers(marker: str) -> list[int]:
    """The running `sleep MARKER` processes (found by their command line: the user code may run in a PID namespace
    whose pids mean nothing here)."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if Path(f"/proc/{name}/cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", marker.encode()]:
                if Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()[0] not in ("Z", "X"):
                    found.append(int(name))
        except (OSError, ValueError):
            pass
    return found


SPAWN = """\
    import os, subprocess
    open({ran!r}, "a").write("ran\\n")
    subprocess.Popen(["sleep", {marker!r}], start_new_session=True)
    middle = os.fork()
    if middle == 0:  # a daemon: double fork, a session of its own
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", {marker!r}])
        os._exit(0)
    os.waitpid(middle, 0)
"""


def test_killing_the_process_group_or_the_parent_leaves_nothing_and_proves_nothing(tmp_path):
    marker = f"300.{os.getpid()}{len(str(tmp_path))}"
    ran = tmp_path / "ran"
    spawn = SPAWN.format(ran=str(ran), marker=marker)
    program(tmp_path, "killpg.py", "import os, signal\n", spawn + "    os.killpg(0, signal.SIGTERM)\n")
    program(tmp_path, "killparent.py", "import os, signal\n", spawn + "    os.kill(os.getppid(), signal.SIGKILL)\n")
    rows = verify_rows(tmp_path, "killpg.py", "killparent.py", "--timeout", "30")
    left = _sleepers(marker)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert ran.exists(), "the user code did not run"
    assert left == [], left
    assert rows["killpg.py"]["status"] == "failed" and rows["killparent.py"]["status"] == "failed", rows


# The peak is VmHWM, this process's own high-water mark: getrusage's ru_maxrss also counts what the process
# held before its exec, the size of the test worker that forked it (over 400 MiB in a worker that imported torch).
WRAPPER = """\
import runpy, sys
sys.argv = ["fixinplace", *sys.argv[1:]]
try:
    runpy.run_module("fixinplace", run_name="__main__")
finally:
    hwm = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
    print("peak-rss-kib", hwm, file=sys.stderr)
"""


def test_floods_of_output_and_shared_memory_are_capped(tmp_path):
    # 300 MB of prints per call (the parent kept every line), and 1 GiB of shared anonymous memory touched under
    # --memory 600M (RLIMIT_DATA does not count it).
    program(tmp_path, "loud.py", "import sys\n", "    for _ in range(300):\n        sys.stdout.write('x' * 2**20)\n")
    program(tmp_path, "shared.py", "import mmap\n",
            "    m = mmap.mmap(-1, 2**30, mmap.MAP_SHARED)\n    for i in range(0, 2**30, 4096):\n        m[i] = 1\n")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.run([sys.executable, "-c", WRAPPER, "verify", "loud.py", "shared.py",
                           "--device", "cpu", "--unsafe-fixes", "--format", "json", "--memory", "600M",
                           "--timeout", "120"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=400)
    rows = {r["path"]: r for r in json.loads(proc.stdout)["results"]}
    peak = int(proc.stderr.rsplit("peak-rss-kib", 1)[1].split()[0]) * 1024
    assert peak < 400 * 2**20, f"the parent peaked at {peak / 2**20:.0f} MiB"  # it kept it all: 1.3 GiB
    assert rows["loud.py"]["status"] == "failed", rows["loud.py"]  # judged as usual (the fix is wrong)
    assert rows["shared.py"]["status"] != "verified", rows["shared.py"]
    assert "ran out of memory under the verify cap" in rows["shared.py"]["reason"], rows["shared.py"]
