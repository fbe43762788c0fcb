#!/usr/bin/env bash
# GPU run 7 (issue 29, at the current main): in ONE device call of at most ~$DEADLINE s, every piece under `timeout`:
#   1. env info and an identity of the code measured
#   2. saved-tensor tables, CPU (python -m fixinplace.tables: modules now in float32 too) and CUDA (table_device.py,
#      halves side by side, merged), table_diff.py CPU vs CUDA, and the CUDA overlay they give (make_overlay.py)
#      against the shipped fixinplace/data/saved_tensors.cuda.json; probe_kernels.py (+ rms_norm with the input
#      not requiring grad, the overlay's op difference, in every dtype)
#   3. verify of the fix and check fixtures on --device all (dropout masks now drawn alike in and out of place on
#      CUDA), --entry main, --unsafe-fixes on CUDA, fix --verify --apply on copies; summarize_verify.py
#   4. trace_programs_cuda.py (CUDA vs CPU reports), the CUDA tests of the suite, trace_overhead_cuda.py last
# Run from the repository root on the device machine with `carry: [".whl"]` (bench/cuda/README.md says how to fill
# .whl), timeout_s >= DEADLINE + 60:   bash bench/cuda/run_gpu_7.sh
# Brings back (at most 8 files): run7.log, results7.tar.gz (everything), summary7.md, table_diff.md,
# verify_summary.md, probe_summary.md, pytest.txt, saved_tensors.cuda.json (the overlay measured now).
# TABLES=0 leaves out the tables and the probe (run 8: verify, trace and the tests again after a change to verify).
# Local dry run (CPU only; CUDA pieces fail or skip cleanly, no CUDA op half, slices):
#   DRY=1 SKIP_PIP=1 OUT=/tmp/gpu7_dry bash bench/cuda/run_gpu_7.sh
set -u
: "${OUT:=/tmp/out}"
: "${DEADLINE:=420}"
: "${R:=/tmp/results7}"
DRY=${DRY:-}
LOG=run7.log
. bench/cuda/gpu_lib.sh  # a fresh $R, the output also in $OUT/$LOG, T0
setup_python
export OMP_NUM_THREADS=2 MKL_NUM_THREADS=2   # many processes side by side on 16 cores
: > "$R/pieces.txt"

# --- 2. tables and the probe, in the background (the CUDA op half is the longest piece) ------------------------
TABLES=${TABLES:-1}
if [ "$TABLES" = 0 ]; then
  skip table_cuda_ops "TABLES=0"
elif [ -z "$DRY" ]; then
  bgrun table_cuda_ops 330 python3 bench/cuda/table_device.py --device cuda --part ops --output "$R/table_cuda_ops.json" -v
else
  skip table_cuda_ops DRY
fi
bash bench/cuda/env_info.sh > "$R/env.txt" 2>&1
{ echo "== code measured: sha256 of fixinplace/**/*.py, bench/cuda/*.py, tests/*.py"
  for d in fixinplace bench/cuda tests; do
    echo "$d $(find "$d" -name '*.py' -not -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)"
  done
  git rev-parse HEAD 2>/dev/null || echo "(no .git here)"
} >> "$R/env.txt" 2>&1
cat "$R/env.txt"
TORCH=$(awk '$1 == "torch" && $3 == "cuda" {print $2; exit}' "$R/env.txt")
stamp "torch $TORCH"
if [ "$TABLES" != 0 ]; then
bgrun table_cpu 200 python3 -m fixinplace.tables --output "$R/table_cpu.json" -v
bgrun table_cuda_rest 200 python3 bench/cuda/table_device.py --device cuda --part rest --output "$R/table_cuda_rest.json" -v
bgrun dtypes_cpu 120 python3 bench/cuda/table_device.py --device cpu --dtypes-only --dtypes-output "$R/dtypes_cpu.json"
bgrun dtypes_cuda 120 python3 bench/cuda/table_device.py --device cuda --dtypes-only --dtypes-output "$R/dtypes_cuda.json"
if [ -z "$DRY" ]; then PK=(); else PK=(--only "F.rms_norm input without grad"); fi
bgrun probe_kernels 200 python3 bench/cuda/probe_kernels.py ${PK[@]+"${PK[@]}"} --output "$R/probe_kernels.json" --markdown "$R/probe_kernels.md"
fi

# --- 3. verify ----------------------------------------------------------------------------------------------------
if [ -z "$DRY" ]; then
  FIX=(fixtures/fix/*/before.py); CHECK=(fixtures/check)
else
  FIX=(fixtures/fix/4[34]*/before.py); CHECK=(fixtures/check/058*.py)
fi
V=(python3 -m fixinplace verify --format json)
ONE=fixtures/fix/01_clone_before_write_int_index/before.py
for d in cpu cuda; do  # what one job costs on each device (the CUDA context included)
  t=$(date +%s.%N); timeout 120 "${V[@]}" "$ONE" --device $d -o "$R/verify_one_$d.json" > /dev/null 2>&1
  echo "verify of one file on $d: rc=$? $(python3 -c "import sys,time; print(f'{time.time()-float(sys.argv[1]):.1f}')" "$t") s" | tee -a "$R/verify_timing.txt"
done
bgrun verify_fix_all 200 "${V[@]}" -o "$R/verify_fix_all.json" "${FIX[@]}" --device all
bgrun verify_check_all 200 "${V[@]}" -o "$R/verify_check_all.json" "${CHECK[@]}" --device all
fin verify_fix_all; fin verify_check_all
bgrun verify_fix_all_entry_main 150 "${V[@]}" -o "$R/verify_fix_all_entry_main.json" "${FIX[@]}" --device all --entry main
bgrun verify_fix_cuda_unsafe 150 "${V[@]}" -o "$R/verify_fix_cuda_unsafe.json" "${FIX[@]}" --device cuda --unsafe-fixes
FC=/tmp/fixcopy7; rm -rf "$FC"; mkdir -p "$FC"
for f in "${FIX[@]}"; do cp "$f" "$FC/$(basename "$(dirname "$f")").py"; done
bgrun fix_verify_apply 150 bash -c 'cd "$0" && exec "$@"' "$FC" python3 -m fixinplace fix . --verify --apply
if [ -z "$DRY" ]; then TP=(); else TP=(--programs saved_input.py); fi
bgrun trace_programs 120 python3 bench/cuda/trace_programs_cuda.py --output "$R/trace_programs.json" ${TP[@]+"${TP[@]}"}
for n in verify_fix_all_entry_main verify_fix_cuda_unsafe fix_verify_apply trace_programs; do fin $n; done
written=0
for f in "${FIX[@]}"; do cmp -s "$f" "$FC/$(basename "$(dirname "$f")").py" || written=$((written+1)); done
echo "fix --verify --apply: files written $written of ${#FIX[@]}; not applied: $(grep -c 'not applied' "$R/fix_verify_apply.txt")" \
  | tee "$R/fix_verify_apply_count.txt"
timeout 60 python3 bench/cuda/summarize_verify.py "$R"/verify_*.json > "$R/verify_summary.md" 2>&1
grep -E '^## |^- results|^- (cpu|cuda): max|pairs whose status|^- NOT VERIFIED' "$R/verify_summary.md" | cut -c1-260
grep -E 'same as on CPU|rc=[^01]' "$R/trace_programs.txt"

# --- 4. the suite's CUDA tests and the overlay's tests ------------------------------------------------------------
bgrun pytest 150 python3 -m pytest -v -rA -p no:cacheprovider -n 4 --dist load tests/test_device_overlay.py \
    tests/test_verify.py -k "cuda or dropout or overlay or device or shared"

# --- 2 (cont.). tables: merge, diff, overlay ------------------------------------------------------------------------
if [ "$TABLES" != 0 ]; then
for n in table_cpu table_cuda_rest dtypes_cpu dtypes_cuda; do fin $n; done
fin table_cuda_ops
if [ ! -s "$R/table_cuda_ops.json" ]; then  # not measured this time: run 4's op half (same torch 2.11, the op code unchanged since)
  tar -xzf bench/cuda/results/h200_run4/results4.tar.gz -C /tmp results4/table_cuda_ops.json 2>/dev/null \
    && cp /tmp/results4/table_cuda_ops.json "$R/table_cuda_ops.json" && echo "CUDA op half: run 4's" | tee -a "$R/diffs.txt"
fi
if [ -s "$R/table_cuda_ops.json" ] && [ -s "$R/table_cuda_rest.json" ]; then
  timeout 60 python3 bench/cuda/table_device.py --merge "$R/table_cuda_ops.json" "$R/table_cuda_rest.json" --output "$R/table_cuda.json"
fi
if [ -s "$R/table_cpu.json" ] && [ -s "$R/table_cuda.json" ]; then
  timeout 60 python3 bench/cuda/table_diff.py "$R/table_cpu.json" "$R/table_cuda.json" --dtypes-a "$R/dtypes_cpu.json" \
      --dtypes-b "$R/dtypes_cuda.json" --json "$R/table_diff.json" --markdown "$R/table_diff.md" 2>&1 | tee -a "$R/diffs.txt"
  timeout 60 python3 bench/cuda/make_overlay.py "$R/table_diff.json" --output "$R/saved_tensors.cuda.json" 2>&1 | tee -a "$R/diffs.txt"
  timeout 60 python3 - "$R/saved_tensors.cuda.json" fixinplace/data/saved_tensors.cuda.json <<'PY' 2>&1 | tee -a "$R/diffs.txt"
import json, sys
new, old = (json.load(open(p)) for p in sys.argv[1:3])
for section in ("modules", "ops"):
    a, b = old.get(section, {}), new.get(section, {})
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            print(f"overlay {section} {name}: {'added' if name not in a else 'gone' if name not in b else 'changed'}")
print("overlay: torch", new.get("torch_version"), "vs shipped", old.get("torch_version"))
PY
  timeout 60 python3 bench/cuda/table_diff.py "$R/table_cpu.json" fixinplace/data/saved_tensors.json \
      --json "$R/table_diff_shipped.json" --markdown "$R/table_diff_shipped.md" > "$R/table_diff_shipped.txt" 2>&1
else
  echo "no CPU-vs-CUDA table diff (a table is missing)" > "$R/table_diff.md"
fi
fin probe_kernels
if [ -s "$R/probe_kernels.json" ]; then
  timeout 60 python3 bench/cuda/probe_summary.py "$R/probe_kernels.json" > "$R/probe_summary.md" 2>&1
else
  echo "no probe output" > "$R/probe_summary.md"
fi
grep -A12 'rms_norm input without grad' "$R/probe_kernels.md" | head -40
fi

# --- 4 (cont.). pytest, then the trace overhead on a quiet machine -------------------------------------------------
fin pytest
grep -E '^(FAILED|ERROR|PASSED|SKIPPED)|passed|failed' "$R/pytest.txt" | cut -c1-200 | tail -n 30
bgrun trace_overhead_cuda 60 python3 bench/cuda/trace_overhead_cuda.py --device cuda --repeats 5
fin trace_overhead_cuda
cat "$R/trace_overhead_cuda.txt"

# --- summary, files -------------------------------------------------------------------------------------------------
S=$R/summary7.md
{
  echo "# GPU run 7: summary ($(date -u +%FT%TZ), $(elapsed) s)"
  echo; echo "## Pieces (rc: 0 ok, 124/137 timed out, 99 skipped)"; echo '```'; cat "$R/pieces.txt"; echo '```'
  echo; echo "## Machine"; echo '```'
  grep -E '^(python|torch|gpu|cudnn|TF32|cuda available|NVIDIA|deterministic)|^(fixinplace|bench/cuda|tests) [0-9a-f]{16}$|^[0-9a-f]{40}$' "$R/env.txt"
  echo '```'
  echo; echo "## Tables and overlay"; echo '```'; cat "$R/diffs.txt" 2>/dev/null; echo '```'
  echo; echo "### table_diff.md, first 60 lines"; head -n 60 "$R/table_diff.md"
  echo; echo "## Verify"; echo '```'
  grep -E '^## |^- results|^- by device|^- (cpu|cuda): max|pairs whose status|^- NOT VERIFIED' "$R/verify_summary.md" | cut -c1-300
  cat "$R/fix_verify_apply_count.txt" "$R/verify_timing.txt" 2>/dev/null
  echo '```'
  echo; echo "## Trace programs (CPU vs CUDA)"; echo '```'; grep -E 'same as on CPU|rc=[^01]' "$R/trace_programs.txt"; echo '```'
  echo; echo "## Trace overhead"; echo '```'; cat "$R/trace_overhead_cuda.txt" 2>/dev/null; echo '```'
  echo; echo "## pytest"; echo '```'; grep -E '^(FAILED|ERROR|SKIPPED)|[0-9]+ (passed|failed)' "$R/pytest.txt" | cut -c1-300; echo '```'
} > "$S" 2>&1
stamp "done"
cp "$OUT/run7.log" "$R/run7.log" 2>/dev/null; rm -f "$R"/.end_*
tar czf "$OUT/results7.tar.gz" -C "$(dirname "$R")" "$(basename "$R")"
cp "$S" "$R/table_diff.md" "$R/verify_summary.md" "$R/probe_summary.md" "$R/pytest.txt" "$OUT/" 2>/dev/null
[ -s "$R/saved_tensors.cuda.json" ] && cp "$R/saved_tensors.cuda.json" "$OUT/"
ls -la "$OUT"
head -c 6000 "$S"
