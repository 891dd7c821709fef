#!/bin/sh
# The production path of `make serve`: the database migrated, static files collected (with
# --catalog: the bundled catalog imported and its examples scored), then gunicorn on a Unix
# socket in VAR_DIR/run behind nginx on HOST:PORT (config/nginx.conf.template). Stops both when
# either stops or on Ctrl-C.
#
#   HOST, PORT (127.0.0.1, 8000), SITE_URL (http://HOST:PORT), WEB_CONCURRENCY, VAR_DIR (var/),
#   CATALOG_MAX_UPLOAD_BYTES, FRONT_RATE, FRONT_BURST, FRONT_CONNECTIONS (per-client limits),
#   APP_USER (fuelboard), WEB_USER (www-data): the accounts used when started as root;
#   TASKS_BACKEND (database): TASK_WORKERS `db_worker` processes (one per core) run the queued
#   jobs, and `requeue_stale_jobs` runs every minute; `immediate` scores in the web worker.
#
# Builds: started as root, the build launcher (scripts/launcher.sh) gives each build an account
# and a cgroup of its own, and everything of the site asks it for builds; it is started again if
# it stops. Run as another account, no build can be confined: the site refuses to start unless
# SCORING_ALLOW_UNCONFINED_BUILDS=1 (a development machine).
#
# Started as root, nothing of the site runs as root, and root never writes where the site's
# account could have put a link: the site (the set-up steps too: migrate, import, examples)
# runs as APP_USER (made if missing, with no login and no home), nginx's workers as WEB_USER.
# VAR_DIR belongs to APP_USER and is 0710 of WEB_USER's group (which may pass through it to the
# socket, not list or read anything); VAR_DIR/run is made afresh each start, 0750 of that group;
# the socket is 0770 of that group; nginx's own files (its configuration, pid, buffers) live in
# a folder of root's under /run. Run as another account, everything runs as that account and
# VAR_DIR stays 0700.
set -eu
cd "$(dirname "$0")/.."
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
SITE_URL="${SITE_URL:-http://$HOST:$PORT}"
STATIC_MANIFEST="${STATIC_MANIFEST:-1}"
WEB_CONCURRENCY="${WEB_CONCURRENCY:-$(($(nproc) * 2 + 1))}"
# Scoring (an uploaded source's build among it) runs in the task workers, never in a web worker
# that gunicorn's timeout would cut.
TASKS_BACKEND="${TASKS_BACKEND:-database}"
export SITE_URL STATIC_MANIFEST WEB_CONCURRENCY TASKS_BACKEND
VAR_DIR="${VAR_DIR:-$(pwd)/var}"
if [ -L "$VAR_DIR" ]; then
    echo "VAR_DIR ($VAR_DIR) is a symbolic link: name the folder itself" >&2
    exit 1
fi
# Absolute (links above it kept as they are): one site, one name, from wherever it is started.
VAR_DIR="$(realpath -m -s "$VAR_DIR")"
export VAR_DIR
RUN_DIR="$VAR_DIR/run"
UPLOAD="${CATALOG_MAX_UPLOAD_BYTES:-67108864}"
MAX_BODY=$((UPLOAD + 1048576))
API_MAX_BODY="${API_UPLOAD_MAX_BYTES:-33554432}"
# Per client address: requests a second (with a burst), and connections with a request being
# served, fewer than the workers so that one address cannot hold them all. 0 turns a limit off
# (behind another proxy, every client may share one address).
FRONT_RATE="${FRONT_RATE:-30}"
FRONT_BURST="${FRONT_BURST:-120}"
FRONT_CONNECTIONS="${FRONT_CONNECTIONS:-$((WEB_CONCURRENCY > 1 ? WEB_CONCURRENCY - 1 : 1))}"
APP_USER="${APP_USER:-fuelboard}"
WEB_USER="${WEB_USER:-www-data}"
PY=.venv/bin/python
AS_APP=""

# Everything this script starts stops with it, however it ends (a set-up step failing, the
# launcher failing to start again, Ctrl-C); stopping twice is stopping once.
. scripts/task-workers.sh
front="" gunicorn="" stopped="" NGINX_DIR=""
stop() {
    if [ -n "$stopped" ]; then return 0; fi
    stopped=1
    kill $front $gunicorn $workers 2>/dev/null || true
    for process in $front $gunicorn $workers; do
        wait "$process" 2>/dev/null || true
    done
    # The launcher last: a worker's build in flight ends with its worker, not before it.
    if [ -n "$AS_APP" ]; then
        stop_launcher
        rm -rf "$NGINX_DIR"  # nginx's folder of root's under /run (under VAR_DIR otherwise: kept)
    fi
}
trap stop EXIT
trap 'stop; exit 0' INT TERM HUP

if [ -d "$VAR_DIR" ] && [ -n "$(find "$VAR_DIR" -maxdepth 0 -perm -0002)" ]; then
    echo "VAR_DIR ($VAR_DIR) may be written by everyone: give the site a folder of its own" >&2
    exit 1
fi

USER_LINE=""
if [ "$(id -u)" = 0 ]; then
    . scripts/launcher.sh
    site_account
    if ! id -u "$WEB_USER" >/dev/null 2>&1; then
        echo "nginx's account $WEB_USER does not exist (set WEB_USER to the account nginx's workers run as)" >&2
        exit 1
    fi
    WEB_GROUP="$(id -gn "$WEB_USER")"
    USER_LINE="user $WEB_USER $WEB_GROUP;"
    # Root's own folder for nginx, outside anything the site's account may write.
    NGINX_DIR="/run/fuelboard-front/$(printf '%s' "$VAR_DIR" | sha1sum | cut -c1-16)"
    rm -rf "$NGINX_DIR"
    mkdir -p -m 0755 /run/fuelboard-front "$NGINX_DIR"
    # The site owns its state; -h everywhere: a link the site's account put there is changed
    # itself, never what it points to.
    mkdir -p -m 0700 "$VAR_DIR"
    chown -R -h "$APP_USER:$APP_USER" "$VAR_DIR"
    chgrp -h "$WEB_GROUP" "$VAR_DIR"
    chmod u=rwx,g=x,o=,g-s "$VAR_DIR"
    rm -rf "$RUN_DIR"
    mkdir -m 0750 "$RUN_DIR"
    chown -h "$APP_USER:$WEB_GROUP" "$RUN_DIR"
    case "${DATABASE_URL:-}" in
        sqlite:///*)  # a database outside VAR_DIR: the app must own it and write beside it
            database="${DATABASE_URL#sqlite://}"
            case "$database" in /*) ;; *) database="$(pwd)/${database#/}" ;; esac
            for file in "$database" "$database-wal" "$database-shm"; do
                if [ -e "$file" ] || [ -L "$file" ]; then chown -h "$APP_USER:$APP_USER" "$file"; fi
            done
            if ! setpriv --reuid="$APP_USER" --regid="$APP_USER" --init-groups test -w "$(dirname "$database")"; then
                echo "$APP_USER cannot write in $(dirname "$database"), where the database lives (SQLite writes its log beside it)" >&2
                exit 1
            fi ;;
    esac
    if ! $AS_APP $PY -c "import django" 2>/dev/null; then
        echo "$APP_USER cannot run $PY ($(readlink -f $PY)): make the virtualenv with an" >&2
        echo "interpreter every account can reach (make clean; make serve PYTHON=/usr/bin/python3)" >&2
        exit 1
    fi
    if ! setpriv --reuid="$WEB_USER" --regid="$WEB_GROUP" --init-groups test -x "$RUN_DIR"; then
        echo "nginx's workers ($WEB_USER) cannot reach $RUN_DIR: make the folders above VAR_DIR searchable (chmod o+x)," >&2
        echo "or run make serve as the site's own account" >&2
        exit 1
    fi
    start_launcher
else
    NGINX_DIR="$VAR_DIR/nginx"
    mkdir -p -m 0700 "$VAR_DIR" "$RUN_DIR" "$NGINX_DIR"
    chmod 700 "$VAR_DIR" "$RUN_DIR"
    rm -f "$RUN_DIR/gunicorn.sock"
fi

# Where builds cannot be confined, stop here with the reason and the way to fix it.
$AS_APP $PY manage.py sandbox_status
# The set-up, as the account the site runs as (the database first: it is the site's to create).
$AS_APP $PY manage.py migrate --noinput
# Root copies the static files (into a folder of root's) and touches nothing of the site's state:
# its settings are read against a scratch folder of root's (no secret key, no database of the site's).
static_scratch="$(mktemp -d)"
VAR_DIR="$static_scratch" DATABASE_URL="sqlite:///$static_scratch/none.sqlite3" SECRET_KEY=static-files-only \
    $PY manage.py collectstatic --noinput --verbosity 0
rm -rf "$static_scratch"
if [ "${1:-}" = --catalog ]; then
    $AS_APP $PY manage.py import_catalog
    $AS_APP $PY manage.py score_examples
fi
if [ -n "$AS_APP" ]; then
    static="${STATIC_ROOT:-$(pwd)/staticfiles}/staticfiles.json"
    if ! $AS_APP test -r "$static"; then
        echo "$APP_USER cannot read $static (collectstatic's manifest): put STATIC_ROOT where it can" >&2
        exit 1
    fi
fi

LIMITS=""
ZONES=""
if [ "$FRONT_RATE" != 0 ]; then
    ZONES="limit_req_zone \$binary_remote_addr zone=per_client_rate:10m rate=${FRONT_RATE}r/s;"
    LIMITS="limit_req zone=per_client_rate burst=$FRONT_BURST nodelay;"
fi
if [ "$FRONT_CONNECTIONS" != 0 ]; then
    ZONES="$ZONES limit_conn_zone \$binary_remote_addr zone=per_client_connections:10m;"
    LIMITS="$LIMITS limit_conn per_client_connections $FRONT_CONNECTIONS;"
fi

sed -e "s|@USER@|$USER_LINE|" -e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@NGINX_DIR@|$NGINX_DIR|g" -e "s|@HOST@|$HOST|g" -e "s|@PORT@|$PORT|g" \
    -e "s|@FRONT_RATE@|$FRONT_RATE|g" -e "s|@FRONT_BURST@|$FRONT_BURST|g" -e "s|@FRONT_CONNECTIONS@|$FRONT_CONNECTIONS|g" \
    -e "s|@MAX_BODY@|$MAX_BODY|g" -e "s|@API_MAX_BODY@|$API_MAX_BODY|g" -e "s|@LIMIT_ZONES@|$ZONES|" -e "s|@LIMITS@|$LIMITS|" \
    config/nginx.conf.template > "$NGINX_DIR/nginx.conf"
nginx -t -q -c "$NGINX_DIR/nginx.conf" -e stderr

GUNICORN_BIND="unix:$RUN_DIR/gunicorn.sock" $AS_APP .venv/bin/gunicorn -c config/gunicorn.py &
gunicorn=$!
if [ -n "$AS_APP" ]; then
    # gunicorn gives its socket its own group; nginx's must have it (mode 0770: no one else).
    waited=0
    while [ ! -S "$RUN_DIR/gunicorn.sock" ]; do
        if ! kill -0 "$gunicorn" 2>/dev/null || [ "$waited" -ge 600 ]; then
            echo "gunicorn did not start" >&2
            kill "$gunicorn" 2>/dev/null || true
            exit 1
        fi
        sleep 0.1
        waited=$((waited + 1))
    done
    chgrp -h "$WEB_GROUP" "$RUN_DIR/gunicorn.sock"
fi
nginx -c "$NGINX_DIR/nginx.conf" -e stderr &
front=$!
if [ "$TASKS_BACKEND" = database ]; then
    # Queued scoring jobs (an upload's build among them) run here, not in a web worker.
    start_workers "${TASK_WORKERS:-$(nproc)}"
fi
echo "serving on $SITE_URL/ (nginx on http://$HOST:$PORT/ in front of gunicorn on $RUN_DIR/gunicorn.sock)"
# Whichever stops first takes the other down with it; a task worker (or the launcher) that stops
# is started again. Once a minute, jobs whose worker died get a new attempt.
ticks=0
while kill -0 "$front" 2>/dev/null && kill -0 "$gunicorn" 2>/dev/null; do
    sleep 1
    if [ -n "$AS_APP" ]; then keep_launcher; fi
    if [ "$TASKS_BACKEND" = database ]; then keep_workers; fi
    ticks=$((ticks + 1))
    if [ "$TASKS_BACKEND" = database ] && [ "$ticks" -ge 60 ]; then
        ticks=0
        $AS_APP $PY manage.py requeue_stale_jobs >/dev/null 2>&1 || echo "requeue_stale_jobs failed" >&2
    fi
done
stop
exit 1
