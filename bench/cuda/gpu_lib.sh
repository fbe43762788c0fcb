# Shared by the one-call GPU scripts (run_gpu_4.sh, run_gpu_7.sh): the python that holds torch, the carried wheels,
# and pieces run in the background under `timeout`, each ending by $DEADLINE seconds after $T0.
# Source it after setting OUT, DEADLINE, R (the results folder) and LOG (the log's name under $OUT): it empties $R,
# sends all further output to $OUT/$LOG too, and starts the clock (T0).
mkdir -p "$OUT"
rm -rf "$R"; mkdir -p "$R"
exec > >(tee "$OUT/$LOG") 2>&1
T0=$(date +%s)
now() { date +%s; }
elapsed() { echo $(( $(now) - T0 )); }
stamp() { echo "[$(elapsed)s] $*"; }
# tmo CAP: a timeout of at most CAP seconds that still ends 5 s before the deadline (at least 1 s)
tmo() { local left=$(( DEADLINE - $(elapsed) - 5 )); local t=$1; [ "$left" -lt "$t" ] && t=$left; [ "$t" -lt 1 ] && t=1; echo "$t"; }

# --- python: the device's python3 holds torch; a local dry run uses the repository's venv ---------------------
if ! python3 -c "import torch" 2>/dev/null && [ -x .venv/bin/python3 ]; then
  export PATH=$PWD/.venv/bin:$PATH
fi

# --- wheels: .whl/*.whl always (our versions), .whl/if_missing/*.whl only where the machine lacks the package -----
SITE_MODE=env
install_wheels() {
  local w name missing=()
  for w in .whl/if_missing/*.whl; do
    [ -e "$w" ] || continue
    name=$(basename "$w" | cut -d- -f1)
    python3 -c "import importlib.metadata as m, sys; m.version(sys.argv[1])" "$name" 2>/dev/null || missing+=("$w")
  done
  echo "wheels from .whl/if_missing (missing here): ${missing[*]:-none}"
  local args=(-q --no-index --no-deps --no-compile --no-cache-dir --upgrade)
  if python3 -m pip install "${args[@]}" .whl/*.whl ${missing[@]+"${missing[@]}"}; then
    SITE_MODE=env; return 0
  fi
  echo "pip install into the environment failed; trying --target /tmp/site"
  rm -rf /tmp/site; mkdir -p /tmp/site
  if python3 -m pip install "${args[@]}" --target /tmp/site .whl/*.whl ${missing[@]+"${missing[@]}"}; then
    SITE_MODE=target; return 0
  fi
  echo "pip failed; unzipping the wheels into /tmp/site"
  rm -rf /tmp/site; mkdir -p /tmp/site
  for w in .whl/*.whl ${missing[@]+"${missing[@]}"}; do python3 -m zipfile -e "$w" /tmp/site || return 1; done
  SITE_MODE=target
}
# setup_python: install the wheels (unless SKIP_PIP=1: a local dry run where the packages are installed), set
# PYTHONPATH so that the tests' subprocesses find them, and check the imports.
setup_python() {
  stamp "python3 is $(command -v python3) ($(python3 -c 'import sys; print(sys.version.split()[0])'))"
  if [ -z "${SKIP_PIP:-}" ]; then
    install_wheels || stamp "WARNING: wheels not installed"
  fi
  if [ "$SITE_MODE" = target ]; then export PYTHONPATH=$PWD:/tmp/site; else export PYTHONPATH=$PWD; fi
  export PYTHONUNBUFFERED=1
  python3 -c "import libcst, typer, pygls, lsprotocol, unidiff, rich, pydantic, expecttest, numpy, yaml, xdist, pytest_asyncio, fixinplace.cli; print('imports ok: typer', typer.__version__, 'libcst', libcst.__file__)" \
    || stamp "WARNING: an import failed (see above)"
  stamp "wheels: $([ -n "${SKIP_PIP:-}" ] && echo skipped || echo "installed ($SITE_MODE)"), PYTHONPATH=$PYTHONPATH"
}

# --- background pieces: bgrun NAME CAP CMD... (output to $R/NAME.txt); fin NAME waits and logs rc and time ----------
declare -A PID START
bgrun() {
  local name=$1 cap=$2; shift 2
  local t; t=$(tmo "$cap")
  if [ "$t" -lt 3 ]; then skip "$name" "no time left before the deadline"; return; fi
  START[$name]=$(now)
  # the subshell notes when the piece really ended (fin may wait for it much later)
  ( timeout -k 5 "$t" "$@"; rc=$?; now > "$R/.end_$name"; exit $rc ) > "$R/$name.txt" 2>&1 &
  PID[$name]=$!
  stamp "start $name (timeout ${t}s)"
}
fin() {
  local name=$1
  [ -n "${PID[$name]:-}" ] || return 99   # skipped (skip has logged it)
  wait "${PID[$name]}"; local rc=$?
  local end; end=$(cat "$R/.end_$name" 2>/dev/null || now)
  local dt=$(( end - START[$name] ))
  local note=""; { [ $rc = 124 ] || [ $rc = 137 ]; } && note=" TIMED OUT"
  echo "$name rc=$rc ${dt}s (ended at $(( end - T0 ))s)$note" >> "$R/pieces.txt"
  stamp "$name rc=$rc (${dt}s, ended at $(( end - T0 ))s)$note"
  return $rc
}
skip() { echo "$1 skipped ($2)" >> "$R/pieces.txt"; stamp "skip $1: $2"; }
# wait_until NAME LIMIT: until the piece has ended or LIMIT seconds after the start have passed
wait_until() { while [ -n "${PID[$1]:-}" ] && kill -0 "${PID[$1]}" 2>/dev/null && [ "$(elapsed)" -lt "$2" ]; do sleep 1; done; }
