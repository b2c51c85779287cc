#!/usr/bin/env bash
# Runs every test: TypeScript (node --test) and Python (pytest), on the real local stack.
# Reuses a running stack; otherwise starts it and stops it again at the end.
set -uo pipefail
cd "$(dirname "$0")/.."

started=""
if ! node bin/finalstate.js dev status >/dev/null 2>&1; then
  node bin/finalstate.js dev up || exit 1
  started=1
fi
cleanup() { [ -n "$started" ] && node bin/finalstate.js dev down >/dev/null; }
trap cleanup EXIT

rc=0
echo "== Lint and format (ESLint, Prettier, ruff)"
npx eslint . || rc=1
npx prettier --check . --log-level warn || rc=1
.venv/bin/ruff check python || rc=1
echo "== TypeScript tests (node --test)"
mapfile -t ts_tests < <(find dist/test -name '*.test.js' | sort)
node --test --test-reporter=spec --test-timeout=600000 "${ts_tests[@]}" || rc=1
echo "== Python tests (pytest)"
.venv/bin/python -m pytest -q python/tests || rc=1
exit $rc
