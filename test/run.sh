#!/usr/bin/env bash
# Runs every test: TypeScript (node --test) and Python (pytest), on the real local stack.
# Reuses a running stack; otherwise starts it and stops it again at the end. One vLLM server (the CPU build in
# .venv-vllm, ~3.5 GB) serves the TypeScript tests: started while the linters run, passed to them in
# FINALSTATE_VLLM_URL/_MODEL/_WEIGHTS, stopped before the tests that start vLLM servers of their own.
set -uo pipefail
cd "$(dirname "$0")/.."

started=""
if ! node bin/finalstate.js dev status >/dev/null 2>&1; then
  node bin/finalstate.js dev up || exit 1
  started=1
fi
vllm_dir=$(mktemp -d "${TMPDIR:-/tmp}/finalstate-suite-vllm.XXXXXX")
stop_vllm() { node dist/test/helpers/vllm-suite.js stop "$vllm_dir" >/dev/null 2>&1; }
cleanup() {
  stop_vllm
  [ -n "$started" ] && node bin/finalstate.js dev down >/dev/null
}
trap cleanup EXIT

rc=0
node dist/test/helpers/vllm-suite.js start "$vllm_dir" > "$vllm_dir.env" &
vllm_starter=$!
echo "== Lint and format (ESLint, Prettier, ruff)"
npx eslint . || rc=1
npx prettier --check . --log-level warn || rc=1
.venv/bin/ruff check python || rc=1
echo "== vLLM for the TypeScript tests"
if wait $vllm_starter; then
  set -a; . "$vllm_dir.env"; set +a
  echo "vLLM serves at $FINALSTATE_VLLM_URL"
else
  echo "vLLM did not start (its error is above): the vLLM tests start their own, and fail if they cannot" >&2
  rc=1
fi
rm -f "$vllm_dir.env"
echo "== TypeScript tests (node --test)"
# These start vLLM servers of their own (one crashes on purpose): run once the shared one is stopped.
own_vllm=(dist/test/runtime/vllm-faults.test.js dist/test/demo/real-smoke.test.js)
mapfile -t ts_tests < <(find dist/test -name '*.test.js' | grep -vxF -f <(printf '%s\n' "${own_vllm[@]}") | sort)
node --test --test-reporter=spec --test-timeout=600000 "${ts_tests[@]}" || rc=1
stop_vllm
unset FINALSTATE_VLLM_URL FINALSTATE_VLLM_MODEL FINALSTATE_VLLM_WEIGHTS
node --test --test-reporter=spec --test-timeout=1800000 "${own_vllm[@]}" || rc=1
echo "== Python tests (pytest)"
.venv/bin/python -m pytest -q python/tests || rc=1
exit $rc
