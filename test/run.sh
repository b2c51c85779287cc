#!/usr/bin/env bash
# Runs the tests in tiers: bash test/run.sh [unit|stack|own|python|lint|all] (default all, what `npm test` and CI run).
# test/tiers.json puts every TypeScript test file in one tier (test/project/tiers.test.ts checks it):
#   unit    no PostgreSQL, Temporal server, Python or vLLM: node_modules and the build only (npm run test:unit)
#   stack   the shared stack (`finalstate dev up`: Temporal dev server and PostgreSQL) and one shared vLLM server (the
#           CPU build in .venv-vllm, ~3.5 GB), passed in FINALSTATE_VLLM_URL/_MODEL/_WEIGHTS
#   own     files that start servers of their own (PostgreSQL clusters, Temporal, vLLM, a fixed-port policy server) or
#           stop and kill them, with the shared vLLM stopped: two lanes side by side, one file at a time in each
#   python  pytest (python/tests, and the ThinkingBox and OpenEnv packages' and the TRL example's tests in their own
#           venvs; in `all`, beside the own tier); lint: ESLint, Prettier, ruff
# Each tier runs in one `node --test` with its own explicit concurrency. A tier that needs the stack reuses a running
# one, or starts it and stops it again at the end. Each tier's time is printed as it ends, and all of them at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

what=${1:-all}
case $what in
  unit | stack | own | python | lint | all) ;;
  *)
    echo "usage: bash test/run.sh [unit|stack|own|python|lint|all]" >&2
    exit 2
    ;;
esac

rc=0
times=()
started=""
vllm_dir=""
# Each tier's output is kept here too: a failed run ends by repeating what failed, since CI shows the end of the output
digest=$(mktemp -d "${TMPDIR:-/tmp}/finalstate-tests.XXXXXX")
stop_vllm() {
  [ -n "$vllm_dir" ] && node dist/test/helpers/vllm-suite.js stop "$vllm_dir" >/dev/null 2>&1
  vllm_dir=""
  unset FINALSTATE_VLLM_URL FINALSTATE_VLLM_MODEL FINALSTATE_VLLM_WEIGHTS
}
# failure_digest: what failed, repeated at the end of the run: node's "failing tests" section of each TypeScript tier
# (with the errors), pytest's short summary, and the shared vLLM's log tail when the stack tier failed
failure_digest() {
  local log name
  for log in "$digest"/*.log; do
    [ -f "$log" ] || continue
    name=$(basename "$log" .log)
    case $name in
      vllm) echo "== the shared vLLM's log tail (repeated from above)" && cat "$log" ;;
      python) grep -q '^=* short test summary' "$log" &&
        echo "== what failed in python (repeated from above)" && sed -n '/^=* short test summary/,$p' "$log" | head -60 ;;
      *) grep -q '^✖ failing tests:' "$log" &&
        echo "== what failed in $name (repeated from above)" && sed -n '/^✖ failing tests:/,$p' "$log" | grep -v '^ℹ ' | head -150 ;;
    esac
  done
}
cleanup() {
  stop_vllm
  [ -n "$started" ] && node bin/finalstate.js dev down >/dev/null
  [ $rc -ne 0 ] && failure_digest
  rm -rf "$digest"
  if [ ${#times[@]} -gt 0 ]; then
    local IFS=,
    echo "== test/run.sh $what: ${times[*]}" | sed 's/,/, /g'
  fi
}
trap cleanup EXIT

# timed NAME COMMAND...: runs it, prints and records its wall time, and keeps a failure in rc
timed() {
  local name=$1 t0 code
  shift
  t0=$(date +%s)
  "$@"
  code=$?
  times+=("$name $(($(date +%s) - t0)) s$([ $code -ne 0 ] && echo " (failed)")")
  echo "== $name: $(($(date +%s) - t0)) s, exit $code"
  [ $code -eq 0 ] || rc=1
}

# tier_files TIER [LANE]: the compiled test files of that tier of test/tiers.json (own: of its lane 1 or 2, or all)
tier_files() {
  node -e '
    const [tier, lane] = process.argv.slice(1);
    const m = JSON.parse(require("fs").readFileSync("test/tiers.json", "utf8"));
    const lanes = tier === "own" ? m.own.filter((_, i) => !lane || i === Number(lane) - 1) : [m[tier]];
    for (const f of lanes.flatMap((l) => (Array.isArray(l) ? l : Object.keys(l))))
      console.log("dist/" + f.replace(/\.ts$/, ".js"));
  ' "$@"
}

# run_tier TIER[:LANE] NODE_TEST_OPTIONS...: every file of the tier (or of that lane of the own tier) in one node --test
run_tier() {
  local tier=${1%%:*} lane="" files
  [[ $1 == *:* ]] && lane=${1#*:}
  shift
  mapfile -t files < <(tier_files "$tier" $lane)
  echo "== $tier tier${lane:+, lane $lane}: ${#files[@]} test files (node --test $*)"
  node --test --test-reporter=spec "$@" "${files[@]}" 2>&1 | tee "$digest/$tier${lane:+-lane-$lane}.log"
}

ensure_stack() {
  if ! node bin/finalstate.js dev status >/dev/null 2>&1; then
    node bin/finalstate.js dev up || exit 1
    started=1
  fi
}

# start_vllm: the shared vLLM server, started in the background; wait_vllm exports its variables once it serves
start_vllm() {
  vllm_dir=$(mktemp -d "${TMPDIR:-/tmp}/finalstate-suite-vllm.XXXXXX")
  node dist/test/helpers/vllm-suite.js start "$vllm_dir" > "$vllm_dir.env" &
  vllm_starter=$!
}
wait_vllm() {
  echo "== vLLM for the stack tier"
  if wait "$vllm_starter"; then
    set -a
    . "$vllm_dir.env"
    set +a
    echo "vLLM serves at $FINALSTATE_VLLM_URL"
  else
    echo "vLLM did not start (its error is above): the vLLM tests start their own, and fail if they cannot" >&2
    rc=1
  fi
  rm -f "$vllm_dir.env"
}

lint() {
  local code=0
  npx eslint . || code=1
  npx prettier --check . --log-level warn || code=1
  .venv/bin/ruff check python examples || code=1
  return $code
}

# The tiers, each with its concurrency. unit files are CPU-bound and short: 2 on 2 cores. stack files mostly wait on
# the servers: 2 at a time took the tier from 1160 s (one at a time) to 600 s on a 2-core machine, and kept it passing.
# own: two lanes side by side (test/tiers.json), one file at a time each; a lane's lines are prefixed with its number.
unit_tier() { run_tier unit --test-concurrency=2 --test-timeout=300000; }
stack_tier() { run_tier stack --test-concurrency=2 --test-timeout=600000 || { vllm_log_tail; return 1; }; }
# vllm_log_tail: what the shared vLLM logged last (its routes' requests and errors; not the metrics polls), for a
# failed stack tier, whose vLLM tests' failures often start on the server
vllm_log_tail() {
  local log="$vllm_dir/vllm-model.log"
  [ -f "$log" ] || return 0
  echo "== the shared vLLM's log, last 120 lines without /metrics ($log)"
  grep -v 'GET /metrics' "$log" | grep -v 'multiproc_executor.py:[0-9]*\]   \|core.py:[0-9]*\]   ' | tail -120 | cut -c1-400 |
    tee "$digest/vllm.log"
}
own_lane() { run_tier "own:$1" --test-concurrency=1 --test-timeout=1800000 2>&1 | sed -u "s/^/[own $1] /"; }
own_tier() {
  own_lane 1 &
  local one=$! code=0
  own_lane 2 || code=1
  wait $one || code=1
  return $code
}
# ThinkingBox's sidecar (python/finalstate_thinkingbox) runs in ThinkingBox's own venv, when setup installed one
python_tier() {
  local code=0
  .venv/bin/python -m pytest -q python/tests 2>&1 | tee "$digest/python.log" || code=1
  if [ -x .venv-thinkingbox/bin/python ]; then
    .venv-thinkingbox/bin/python -m pytest -q -p no:cacheprovider python/finalstate_thinkingbox/tests 2>&1 |
      tee -a "$digest/python.log" || code=1
  elif [ "${FINALSTATE_THINKINGBOX:-}" = required ]; then
    echo "FINALSTATE_THINKINGBOX=required but .venv-thinkingbox is missing: run npm run setup" | tee -a "$digest/python.log"
    code=1
  else
    echo "python/finalstate_thinkingbox/tests skipped: no .venv-thinkingbox (THINKINGBOX_HOME unset at setup)"
  fi
  # OpenEnv's own server and clients (python/finalstate_openenv) run in .venv-openenv, which setup always installs: a
  # missing one fails. Its tests start `finalstate env serve --openenv` on the shared stack's PostgreSQL.
  if [ -x .venv-openenv/bin/python ]; then
    .venv-openenv/bin/python -m pytest -q -p no:cacheprovider python/finalstate_openenv/tests 2>&1 |
      tee -a "$digest/python.log" || code=1
  else
    echo ".venv-openenv is missing: run npm run setup (infra/setup-openenv.sh)" | tee -a "$digest/python.log"
    code=1
  fi
  # examples/trl-openenv: TRL's GRPOTrainer on `env serve --openenv`, CI-sized (~1.5 min), in .venv-trl, which setup
  # always installs: a missing one fails.
  if [ -x .venv-trl/bin/python ]; then
    .venv-trl/bin/python -m pytest -q -p no:cacheprovider examples/trl-openenv 2>&1 | tee -a "$digest/python.log" || code=1
  else
    echo ".venv-trl is missing: run npm run setup (infra/setup-trl.sh)" | tee -a "$digest/python.log"
    code=1
  fi
  return $code
}
# python_beside FILE: the python tier in the background, its lines prefixed; its seconds and exit code go to FILE
python_beside() {
  local t0 code
  t0=$(date +%s)
  python_tier 2>&1 | sed -u 's/^/[python] /'
  code=${PIPESTATUS[0]}
  echo "$(($(date +%s) - t0)) $code" > "$1"
}

case $what in
  unit) timed unit unit_tier ;;
  lint) timed lint lint ;;
  python)
    ensure_stack # the OpenEnv tests serve episodes on its PostgreSQL
    timed python python_tier
    ;;
  stack)
    ensure_stack
    start_vllm
    wait_vllm
    timed stack stack_tier
    ;;
  own)
    ensure_stack
    timed own own_tier
    ;;
  all)
    ensure_stack
    start_vllm # it loads while the linters and the unit tier run
    echo "== Lint and format (ESLint, Prettier, ruff)"
    timed lint lint
    timed unit unit_tier
    wait_vllm
    timed stack stack_tier
    stop_vllm # the own tier starts vLLM servers of its own
    # pytest runs beside the own tier, whose two lanes mostly wait on the servers they start (about 65% of the two
    # cores on a fresh clone): the two side by side take about the own tier's time instead of the sum.
    python_result=$(mktemp)
    python_beside "$python_result" &
    python_job=$!
    timed own own_tier
    wait $python_job
    read -r python_s python_code < "$python_result"
    rm -f "$python_result"
    times+=("python ${python_s} s beside own$([ "$python_code" -ne 0 ] && echo " (failed)")")
    echo "== python (beside own): ${python_s} s, exit $python_code"
    [ "$python_code" -eq 0 ] || rc=1
    ;;
esac
exit $rc
