#!/bin/sh
# A virtualenv for a candidate engine (docs/epochs.md): the site's requirements with wasmtime
# pinned to another release, in .venv-wasmtime-<release>/. A worker host started with
# CANDIDATE_WASMTIME measures a candidate epoch in it (scripts/worker.sh).
#
#   scripts/candidate-venv.sh RELEASE    make it, or bring it up to date; prints its python
#
# It is made again from scratch when the site's requirements change (a stamp records which).
# Several callers at once wait for one another: the first makes it.
set -eu
cd "$(dirname "$0")/.."
RELEASE="${1:-}"
case "$RELEASE" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "usage: scripts/candidate-venv.sh RELEASE (a wasmtime release, such as 51.0.0)" >&2; exit 2 ;;
esac
case "$RELEASE" in
    *[!0-9.]*) echo "a wasmtime release is digits and dots: $RELEASE" >&2; exit 2 ;;
esac
VENV=".venv-wasmtime-$RELEASE"
# The site's own interpreter (the Makefile's choice: Debian's python3, which the site's account
# may run; an interpreter under root's home would not be), or python3 where there is no site venv.
BASE="$(readlink -f .venv/bin/python 2>/dev/null || true)"
[ -n "$BASE" ] && [ -x "$BASE" ] || BASE=python3
DIGEST=$( (cat requirements.txt; echo "$RELEASE") | sha1sum | cut -c1-12)
STAMP="$VENV/.requirements-$DIGEST"

exec 9<requirements.txt  # the lock: held on the pins themselves, so no lock file is left
flock 9
if [ ! -f "$STAMP" ]; then
    echo "Making $VENV: the site's requirements with wasmtime $RELEASE" >&2
    rm -rf "$VENV"
    pins="$(mktemp)"
    trap 'rm -f "$pins"' EXIT
    sed "s/^wasmtime==.*/wasmtime==$RELEASE/" requirements.txt > "$pins"
    # uv (the site's virtualenv has it: requirements-dev.txt) installs the pins in seconds; pip where it cannot.
    if ! { [ -x .venv/bin/uv ] && .venv/bin/uv venv --quiet --python "$BASE" "$VENV" &&
           .venv/bin/uv pip install --quiet --python "$VENV/bin/python" -r "$pins"; }; then
        rm -rf "$VENV"
        "$BASE" -m venv "$VENV"
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-compile -r "$pins"
    fi
    touch "$STAMP"
fi
echo "$(pwd)/$VENV/bin/python"
