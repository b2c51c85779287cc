#!/usr/bin/env bash
# Installs everything finalstate needs on a fresh machine, idempotently and fast when nothing changed:
# PostgreSQL server binaries (apt-get), node_modules (npm ci), the Python venv (pinned requirements), the build.
set -euo pipefail
cd "$(dirname "$0")/.."

phase_start=$(date +%s)
phase() { # phase NAME: print how long the previous phase took
  local now; now=$(date +%s)
  [ -n "${PHASE:-}" ] && echo "setup: ${PHASE} done in $((now - phase_start)) s"
  PHASE=$1; phase_start=$now
}

apt_install() {
  local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  if [ -z "${APT_UPDATED:-}" ]; then $sudo apt-get update -qq; APT_UPDATED=1; fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

phase "system packages"
if [ -z "${DATABASE_URL:-}" ] && ! command -v initdb >/dev/null 2>&1 && ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  echo "setup: installing PostgreSQL server binaries with apt-get"
  apt_install postgresql
fi
if ! command -v python3 >/dev/null 2>&1; then apt_install python3 python3-venv; fi
# Headless Chromium renders the HTML report in its test (Debian's package).
if [ ! -x /usr/bin/chromium ]; then apt_install chromium; fi
for extra in ${FINALSTATE_APT_EXTRA:-}; do command -v "$extra" >/dev/null 2>&1 || apt_install "$extra"; done

phase "node modules"
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi

phase "python venv"
want=$(cat python/requirements.txt | sha256sum | cut -d' ' -f1)
if [ ! -x .venv/bin/python ] || [ "$(cat .venv/.requirements.sha256 2>/dev/null)" != "$want" ]; then
  [ -x .venv/bin/python ] || python3 -m venv .venv
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  .venv/bin/python -m pip install -q --disable-pip-version-check -r python/requirements.txt
  echo "$want" > .venv/.requirements.sha256
fi

phase "build"
rm -rf dist  # a full build is seconds; a stale compiled test must never run
npx tsc -p tsconfig.json
node dist/schemas/export.js

phase "end"
