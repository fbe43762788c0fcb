"""Why `verify`'s contained child sees no CUDA on a GPU machine (GPU run 4: every CUDA result "skipped").

Each case runs in a fresh subprocess and reports torch.cuda.is_available() and, when False, the error of
torch.cuda.init(): plain; forked after `import torch`; in a new PID namespace (as verify's keeper); joined to a
fresh cgroup (as verify's runner); under RLIMIT_DATA (verify's --memory); all of them together; then fixinplace's
own child protocol through `verify --device cuda`.
    python3 bench/cuda/cuda_in_verify_child.py
"""
import json
import os
import subprocess
import sys
import textwrap

CASE = textwrap.dedent(r'''
import os, sys, resource, json
case = sys.argv[1]
def probe():
    import torch
    try:
        ok = torch.cuda.is_available()
        err = ""
        if not ok:
            try:
                torch.cuda.init()
            except BaseException as e:
                err = f"{type(e).__name__}: {e}"
        else:
            err = str(torch.cuda.get_device_name())
    except BaseException as e:
        ok, err = None, f"{type(e).__name__}: {e}"
    return ok, err
def report(ok, err):
    print(json.dumps({"case": case, "available": ok, "detail": err[:300]}), flush=True)
if "rlimit" in case:
    resource.setrlimit(resource.RLIMIT_DATA, (8 << 30, 8 << 30))
if "cgroup" in case:
    from fixinplace.verify import cgroup
    from fixinplace.verify.keeper import join_cgroup
    g = cgroup.create(8 << 30 if "mem" in case else None)
    print(json.dumps({"case": case, "cgroup": g.path if g else None, "memory": bool(g and g.memory)}), flush=True)
    if g:
        join_cgroup(g.path)
if "pidns" in case:
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    r = libc.unshare(0x20000000)
    print(json.dumps({"case": case, "unshare": r, "errno": ctypes.get_errno()}), flush=True)
if "fork" in case or "pidns" in case:
    import torch  # as the judge: torch imported before the fork, CUDA not initialised
    pid = os.fork()
    if pid == 0:
        if "pidns" in case:
            os.setsid()
            print(json.dumps({"case": case, "pid_in_ns": os.getpid()}), flush=True)
        report(*probe())
        os._exit(0)
    os.waitpid(pid, 0)
else:
    report(*probe())
''')


def main() -> None:
    env = dict(os.environ)
    for case in ("plain", "fork", "rlimit", "cgroup", "cgroup_mem", "pidns", "pidns_cgroup_rlimit"):
        r = subprocess.run([sys.executable, "-c", CASE, case], capture_output=True, text=True, timeout=120, env=env)
        print(r.stdout.strip() or "(no output)", ("\n  stderr: " + r.stderr.strip()[-600:]) if r.returncode else "")
    fixture = "fixtures/fix/01_clone_before_write_int_index/before.py"
    for extra in ([], ["--memory", "none"]):
        r = subprocess.run([sys.executable, "-m", "fixinplace", "verify", fixture, "--device", "cuda", "--entry",
                            "main", "--format", "json", *extra], capture_output=True, text=True, timeout=200, env=env)
        try:
            data = json.loads(r.stdout)
            rows = [(x.get("device"), x.get("status"), x.get("reason", "")[:200]) for f in data.get("files", [data])
                    for x in (f.get("results") or [])] if isinstance(data, dict) else data
        except Exception:
            rows = r.stdout[-800:]
        print("verify", extra, "rc", r.returncode, json.dumps(rows)[:1500], r.stderr[-800:])


if __name__ == "__main__":
    main()
