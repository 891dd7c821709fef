#!/bin/sh
# The virtualenv the inspect-ai integration's tests run in, .venv-inspect/: inspect-ai and the
# kits' meter engine as requirements-inspect.txt pins them, and the integration itself
# (integrations/inspect/), as a harness's user installs it. inspect-ai's dependencies do not fit
# beside the site's own, so it has a virtualenv of its own.
#
#   scripts/inspect-venv.sh    make it, or bring it up to date; nothing is done when it is
#
# It is made again from scratch when the pins or the integration change (a stamp records which).
# Several callers at once (test processes) wait for one another: the first makes it.
set -eu
cd "$(dirname "$0")/.."
VENV=.venv-inspect
DIGEST=$(cat requirements-inspect.txt integrations/inspect/pyproject.toml integrations/inspect/fuelboard_inspect/*.py \
         | sha1sum | cut -c1-12)
STAMP="$VENV/.requirements-$DIGEST"

exec 9<requirements-inspect.txt  # the lock: held on the pins themselves, so no lock file is left
flock 9
[ -f "$STAMP" ] && exit 0
echo "Making $VENV with $(python3 --version)"
rm -rf "$VENV"
# uv (the site's virtualenv has it: requirements-dev.txt) installs the pins in seconds; pip where it cannot.
if ! { [ -x .venv/bin/uv ] && .venv/bin/uv venv --quiet --python python3 "$VENV" &&
       .venv/bin/uv pip install --quiet --python "$VENV/bin/python" -r requirements-inspect.txt &&
       .venv/bin/uv pip install --quiet --python "$VENV/bin/python" --no-deps ./integrations/inspect; }; then
    rm -rf "$VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-compile -r requirements-inspect.txt
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-compile --no-deps ./integrations/inspect
fi
touch "$STAMP"
