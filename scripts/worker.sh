#!/bin/sh
# A worker host: a machine that runs scoring jobs for a site whose web and database are elsewhere.
# Started as root: the site's build launcher (scripts/launcher.sh), then TASK_WORKERS `db_worker`s
# (one per core) as APP_USER, asking it for every build; `requeue_stale_jobs` every minute (any
# number of hosts may run it). Stops everything on Ctrl-C or TERM; the launcher, and any worker,
# is started again if it stops (scripts/task-workers.sh). Run as another account, the workers run as that account and refuse to start unless
# builds can be confined some other way (SCORING_BUILD_LAUNCHER) or SCORING_ALLOW_UNCONFINED_BUILDS=1.
#
# With CANDIDATE_WASMTIME=RELEASE it is a candidate host (docs/epochs.md): the site's pins with that
# wasmtime release in a virtualenv of their own (scripts/candidate-venv.sh), `manage.py epoch
# prepare` run once, and workers that take only the candidate's measurements (the `epoch` queue).
#
#   DATABASE_URL (required: the site's PostgreSQL, over TCP), SECRET_KEY (the site's), VAR_DIR
#   (this host's own state: the compiled-module cache; var/), APP_USER (fuelboard), TASK_WORKERS,
#   and every SCORING_* setting (the limits of a build among them, read by the launcher too).
set -eu
cd "$(dirname "$0")/.."
case "${DATABASE_URL:-}" in
    postgres://*|postgresql://*|pgsql://*) ;;
    *) echo "a worker host needs DATABASE_URL: the site's PostgreSQL (postgres://user:password@host:port/name)" >&2
       exit 1 ;;
esac
TASKS_BACKEND=database
VAR_DIR="${VAR_DIR:-$(pwd)/var}"
if [ -L "$VAR_DIR" ]; then
    echo "VAR_DIR ($VAR_DIR) is a symbolic link: name the folder itself" >&2
    exit 1
fi
VAR_DIR="$(realpath -m -s "$VAR_DIR")"
APP_USER="${APP_USER:-fuelboard}"
export TASKS_BACKEND VAR_DIR
PY=.venv/bin/python
QUEUES=""
if [ -n "${CANDIDATE_WASMTIME:-}" ]; then
    PY="$(scripts/candidate-venv.sh "$CANDIDATE_WASMTIME")"
    QUEUES="--queue-name epoch"
fi
AS_APP=""

# Everything this script starts stops with it, however it ends; stopping twice is stopping once.
. scripts/task-workers.sh
stopped=""
stop() {
    if [ -n "$stopped" ]; then return 0; fi
    stopped=1
    kill $workers 2>/dev/null || true
    for worker in $workers; do
        wait "$worker" 2>/dev/null || true
    done
    if [ -n "$AS_APP" ]; then stop_launcher; fi
}
trap stop EXIT
trap 'stop; exit 0' INT TERM HUP
if [ "$(id -u)" = 0 ]; then
    . scripts/launcher.sh
    site_account
    mkdir -p -m 0700 "$VAR_DIR"
    chown -R -h "$APP_USER:$APP_USER" "$VAR_DIR"
    chmod 0700 "$VAR_DIR"
    start_launcher
else
    mkdir -p -m 0700 "$VAR_DIR"
fi
# Where builds cannot be confined, stop here with the reason and the way to fix it.
$AS_APP $PY manage.py sandbox_status
if [ -n "$QUEUES" ]; then
    $AS_APP $PY manage.py epoch prepare
fi
count="${TASK_WORKERS:-$(nproc)}"
# shellcheck disable=SC2086
start_workers "$count" --no-reload $QUEUES
echo "worker host${QUEUES:+ (candidate: wasmtime $CANDIDATE_WASMTIME)}: $count workers for $(printf '%s' "$DATABASE_URL" | sed 's|//[^@]*@|//|')"
ticks=0
while true; do
    sleep 1
    if [ -n "$AS_APP" ]; then keep_launcher; fi
    keep_workers
    ticks=$((ticks + 1))
    if [ "$ticks" -ge 60 ]; then
        ticks=0
        $AS_APP $PY manage.py requeue_stale_jobs >/dev/null 2>&1 || echo "requeue_stale_jobs failed" >&2
    fi
done
