#!/usr/bin/env bash
# GPU run 3 (issue 16): the two test files again with the carried wheels installed into the machine's own
# environment (in run 2 they were on PYTHONPATH only, and tests/test_trace.py starts its subprocesses with
# PYTHONPATH=<repo>, so those could not import libcst); the verify hang/crash test's command by hand (its reasons);
# bench/cuda/cuda_diffs.py (why dropout fixtures and fixture 33 fail on CUDA). Writes $OUT/results3.tar.gz.
set -u
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
R=/tmp/results3
rm -rf "$R"; mkdir -p "$R"
exec > >(tee "$OUT/run3.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade .whl/*.whl || exit 1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
python3 -c "import libcst, typer, pygls; print('site packages ok', typer.__version__)"
stamp "wheels installed into $(python3 -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

timeout 420 python3 -m pytest -q -rA -p no:cacheprovider --durations=10 tests/test_verify.py tests/test_trace.py \
    > "$R/pytest.txt" 2>&1 &
PT=$!

timeout 120 python3 bench/cuda/cuda_diffs.py --output "$R/cuda_diffs.json" > "$R/cuda_diffs.txt" 2>&1
stamp "cuda_diffs rc=$?"
cat "$R/cuda_diffs.txt"

# test_hang_crash_and_import_error_are_results, by hand
D=/tmp/hang; rm -rf "$D"; mkdir -p "$D"
python3 - "$D" <<'PY'
import sys, pathlib
sys.path.insert(0, "tests")
import test_verify as tv
d = pathlib.Path(sys.argv[1])
H = tv.HAZARD_FN
(d / "hang.py").write_text(H + "\n\ndef main():\n    while True:\n        pass\n")
(d / "crash.py").write_text(H + "\n\ndef main():\n    import os\n    os._exit(3)\n")
(d / "broken.py").write_text("import no_such_module_fixinplace\n" + H + "\n\ndef main():\n    return f(torch.ones(2, requires_grad=True))\n")
(d / "after.py").write_text(H + "\n\ndef main():\n    return f(torch.ones(2, requires_grad=True))\n")
PY
for to in 3 10; do
  t=$(date +%s)
  (cd "$D" && python3 -m fixinplace verify hang.py crash.py broken.py after.py --entry main --timeout $to \
      --device cpu --format json > "$R/hang_timeout$to.json" 2> "$R/hang_timeout$to.err")
  stamp "hang test by hand, --timeout $to: rc=$? ($(( $(date +%s) - t ))s)"
  python3 -c "import json,sys; [print(' ', r['path'], r['status'], r['reason'][:200]) for r in json.load(open(sys.argv[1]))['results']]" "$R/hang_timeout$to.json"
done
python3 -c "import time; t=time.time(); import torch; print('import torch: %.2fs' % (time.time()-t)); t=time.time(); torch.zeros(1, device='cuda'); print('CUDA init: %.2fs' % (time.time()-t))"

wait $PT; stamp "pytest rc=$?"
tail -n 60 "$R/pytest.txt"
stamp done
cp "$OUT/run3.log" "$R/"
tar czf "$OUT/results3.tar.gz" -C /tmp results3
