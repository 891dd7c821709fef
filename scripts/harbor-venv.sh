#!/bin/sh
# The virtualenv Harbor runs in, .venv-harbor/, with the exact pins of requirements-harbor.txt:
# Harbor needs Python 3.12 or newer and the site runs on 3.11, so it cannot share .venv/.
#
#   scripts/harbor-venv.sh     make it, or bring it up to date; nothing is done when it is
#
# It is made again from scratch when the pins change (a stamp file records which it holds).
# Several callers at once (test processes) wait for one another: the first makes it.
set -eu
cd "$(dirname "$0")/.."
VENV=.venv-harbor
STAMP="$VENV/.requirements-$(sha1sum requirements-harbor.txt | cut -c1-12)"

python_for_harbor() {  # a Python 3.12 or newer that can make a virtualenv: on PATH, else pyenv's
    for candidate in $(command -v python3.12 python3.13 2>/dev/null || true) \
                     "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3; do
        [ -x "$candidate" ] || continue
        if "$candidate" -c 'import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 12))' 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

exec 9<requirements-harbor.txt  # the lock: held on the pins themselves, so no lock file is left
flock 9
[ -f "$STAMP" ] && exit 0

python=$(python_for_harbor) || {
    echo "Harbor needs Python 3.12 or newer, and none was found (python3.12 or python3.13 on PATH," >&2
    echo "or ~/.pyenv/versions/3.12.*): install one, e.g. pyenv install 3.12" >&2
    exit 1
}
echo "Making $VENV with $python ($("$python" --version))"
rm -rf "$VENV"
# uv (the site's virtualenv has it: requirements-dev.txt) installs the pins in seconds; pip where it cannot.
if ! { [ -x .venv/bin/uv ] && .venv/bin/uv venv --quiet --python "$python" "$VENV" &&
       .venv/bin/uv pip install --quiet --python "$VENV/bin/python" -r requirements-harbor.txt; }; then
    rm -rf "$VENV"
    "$python" -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-compile -r requirements-harbor.txt
fi
touch "$STAMP"
