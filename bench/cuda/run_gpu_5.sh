#!/usr/bin/env bash
# GPU run 5: verify on CUDA again after the fix of run 4's finding (the CUDA driver fails inside verify's PID
# namespace: every CUDA result was "skipped"). Side by side: verify of the fix and check fixtures on every device
# (with and without --entry main), the unsafe fixes, fix --verify --apply on copies, and the CUDA test of
# tests/test_verify.py. Writes $OUT/run5.log, $OUT/verify_summary5.md, $OUT/results5.tar.gz.
#   bash bench/cuda/run_gpu_5.sh        (carry .whl; see bench/cuda/README.md)
set -u
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
R=/tmp/results5; rm -rf "$R"; mkdir -p "$R"
exec > >(tee "$OUT/run5.log") 2>&1
T0=$(date +%s)
stamp() { echo "[$(( $(date +%s) - T0 ))s] $*"; }
if [ -z "${SKIP_PIP:-}" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile .whl/*.whl > "$R/pip.log" 2>&1; stamp "pip rc=$?"
fi
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1 OMP_NUM_THREADS=2
FIX=(fixtures/fix/*/before.py)
V=(python3 -m fixinplace verify --format json)
pids=()
bg() { local name=$1; shift; ( t=$(date +%s); timeout 200 "$@" > "$R/$name.txt" 2>&1; echo "$name rc=$? $(( $(date +%s) - t ))s" >> "$R/rc.txt" ) & pids+=($!); }
bg verify_fix_all "${V[@]}" -o "$R/verify_fix_all.json" "${FIX[@]}" --device all
bg verify_fix_all_entry_main "${V[@]}" -o "$R/verify_fix_all_entry_main.json" "${FIX[@]}" --device all --entry main
bg verify_check_all "${V[@]}" -o "$R/verify_check_all.json" fixtures/check --device all
bg verify_check_all_entry_main "${V[@]}" -o "$R/verify_check_all_entry_main.json" fixtures/check --device all --entry main
bg verify_fix_all_unsafe "${V[@]}" -o "$R/verify_fix_all_unsafe.json" "${FIX[@]}" --device all --unsafe-fixes
FC=/tmp/fixcopy5; rm -rf "$FC"; mkdir -p "$FC"
for f in "${FIX[@]}"; do cp "$f" "$FC/$(basename "$(dirname "$f")").py"; done
bg fix_verify_apply bash -c 'cd "$0" && exec "$@"' "$FC" python3 -m fixinplace fix . --verify --apply
bg pytest_cuda python3 -m pytest -q -p no:cacheprovider -n 0 -rA tests/test_verify.py -k "cuda"
wait "${pids[@]}"
cat "$R/rc.txt"
written=0
for f in "${FIX[@]}"; do cmp -s "$f" "$FC/$(basename "$(dirname "$f")").py" || written=$((written+1)); done
echo "fix --verify --apply: files written $written of ${#FIX[@]}; not applied: $(grep -c 'not applied' "$R/fix_verify_apply.txt")"
grep -h 'not applied' "$R/fix_verify_apply.txt" | cut -c1-250 | head -20
tail -n 5 "$R/pytest_cuda.txt"
python3 bench/cuda/summarize_verify.py "$R"/verify_*.json > "$R/verify_summary.md" 2>&1
cp "$R/verify_summary.md" "$OUT/verify_summary5.md"
grep -E '^## |^- results|^- by device/status|^- (cpu|cuda): max|^- NOT VERIFIED cuda' "$R/verify_summary.md" | cut -c1-260
stamp done
tar czf "$OUT/results5.tar.gz" -C /tmp results5
