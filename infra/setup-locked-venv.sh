#!/usr/bin/env bash
# bash infra/setup-locked-venv.sh VENV REQUIREMENTS LOCK [SHARE]: installs LOCK (the pinned closure of REQUIREMENTS,
# written by infra/lock-venv.sh) into its own venv VENV, --no-deps, wheels only, from PyPI. Idempotent: seconds when
# nothing changed. The heavy wheels (torch, triton, nvidia-*: ~3.3 GB compressed, ~7 GB installed for PyPI's torch) go
# one per pip call, without pip's cache, unpacked on the venv's disk, as infra/setup.sh does for .venv. With SHARE (a
# venv, e.g. .venv), a heavy wheel that SHARE holds at the very version LOCK pins is linked from there instead: its
# files are SHARE's, read only, and a new SHARE (its .requirements.sha256) sets VENV up again. The venvs of OpenEnv
# (infra/setup-openenv.sh) and TRL (infra/setup-trl.sh) are installed with it.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ] || [ $# -gt 4 ]; then echo "usage: bash infra/setup-locked-venv.sh VENV REQUIREMENTS LOCK [SHARE]" >&2; exit 2; fi
venv=$1 requirements=$2 lock=$3 share=${4:-}
want=$({ cat "$requirements" "$lock"; if [ -n "$share" ]; then cat "$share/.requirements.sha256" 2>/dev/null || true; fi; } |
  sha256sum | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$venv/.setup.sha256" 2>/dev/null)" = "$want" ]; then exit 0; fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
tmp=$PWD/$venv/.pip-tmp
mkdir -p "$tmp"
echo "setup: installing $lock into $venv ($(df -h --output=avail "$venv" | tail -1 | tr -d ' ') free there)"
light=() heavy=()
while IFS= read -r pin; do
  case $(tr 'A-Z_.' 'a-z--' <<<"$pin") in nvidia-*|triton==*|torch==*) heavy+=("$pin") ;; *) light+=("$pin") ;; esac
done < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$lock")
pip=(env TMPDIR="$tmp" "$venv/bin/python" -m pip install -q --no-cache-dir --no-deps --only-binary :all:
  --disable-pip-version-check --index-url https://pypi.org/simple)
failed() {
  echo "setup: installing $lock into $PWD/$venv failed (pip's message is above);" \
    "$(df -h --output=avail "$venv" | tail -1 | tr -d ' ') left on its disk. Packages already installed stay; run it again to continue." >&2
  exit 1
}
"${pip[@]}" "${light[@]}" || failed
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
find "$site" -maxdepth 1 -type l -delete # an earlier setup's links: linked again below if SHARE still holds the pin
# shared PIN: the top-level paths of PIN's files in SHARE (its packages and .dist-info), if SHARE holds that version
shared() {
  [ -n "$share" ] && [ -x "$share/bin/python" ] || return 1
  "$share/bin/python" - "$1" <<'PY'
import importlib.metadata as md, pathlib, sys
name, version = sys.argv[1].split("==")
try:
    dist = md.distribution(name)
except md.PackageNotFoundError:
    sys.exit(1)
if dist.version != version:
    sys.exit(1)
root = pathlib.Path(dist.locate_file("")).resolve()
print("\n".join(sorted({str(root / pathlib.PurePosixPath(str(f)).parts[0]) for f in dist.files or [] if not str(f).startswith("..")})))
PY
}
linked=0
for pin in ${heavy[@]+"${heavy[@]}"}; do
  if paths=$(shared "$pin"); then
    while IFS= read -r path; do
      target=$site/$(basename "$path")
      if [ -e "$target" ] && [ ! -L "$target" ]; then continue; fi # installed here by an earlier setup: kept
      ln -sfn "$path" "$target"
    done <<<"$paths"
    linked=$((linked + 1))
  else
    "${pip[@]}" "$pin" || failed
  fi
done
[ $linked -eq 0 ] || echo "setup: $linked of the ${#heavy[@]} heavy wheels of $lock linked from $share (the same versions)"
"$venv/bin/python" -m pip check
rm -rf "$tmp"
echo "$want" > "$venv/.setup.sha256"
