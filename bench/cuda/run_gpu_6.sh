#!/usr/bin/env bash
# GPU run 6: which multi-job verify hangs on CUDA (run 5: every multi-file verify with CUDA ran past 200 s, while
# one file on CUDA verified in 18 s). Two files on cuda / on cpu, one file on all, each with --timeout 15.
set -u
: "${OUT:=/tmp/out}"
python3 -m pip install -q --no-index --no-deps --no-compile .whl/*.whl > /dev/null 2>&1
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
A=fixtures/fix/01_clone_before_write_int_index/before.py
B=fixtures/fix/03_clone_before_write_slice/before.py
run() { local name=$1; shift; local t=$(date +%s)
  timeout 35 python3 -m fixinplace verify "$@" --timeout 15 --entry main > "$OUT/$name.txt" 2>&1
  echo "== $name rc=$? $(( $(date +%s) - t ))s"; cut -c1-300 "$OUT/$name.txt" | tail -n 12; }
run two_cuda "$A" "$B" --device cuda
run two_cpu "$A" "$B" --device cpu
run one_all "$A" --device all
