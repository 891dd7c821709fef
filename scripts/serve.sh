#!/bin/sh
# The production path of `make serve`: gunicorn on a Unix socket in VAR_DIR/run, behind nginx
# on HOST:PORT (config/nginx.conf.template). Stops both when either stops or on Ctrl-C.
#
#   HOST, PORT (127.0.0.1, 8000), WEB_CONCURRENCY, VAR_DIR (var/), CATALOG_MAX_UPLOAD_BYTES
set -eu
cd "$(dirname "$0")/.."
HOST="${HOST:-127.0.0.1}"
PORT="${PORT:-8000}"
VAR_DIR="${VAR_DIR:-$(pwd)/var}"
RUN_DIR="$VAR_DIR/run"
NGINX_DIR="$VAR_DIR/nginx"
UPLOAD="${CATALOG_MAX_UPLOAD_BYTES:-67108864}"
MAX_BODY=$((UPLOAD + 1048576))
mkdir -p "$RUN_DIR" "$NGINX_DIR"
rm -f "$RUN_DIR/gunicorn.sock"

# Started as root, nginx's master drops its workers to `nobody`, which must reach the socket:
# every folder above VAR_DIR/run must be searchable by others (a private VAR_DIR is refused here,
# rather than answering 502 later). Run as another account, nginx runs as that account.
USER_LINE=""
if [ "$(id -u)" = 0 ]; then
    USER_LINE="user nobody nogroup;"
    chmod 755 "$RUN_DIR" "$NGINX_DIR"
    if ! runuser -u nobody -- test -x "$RUN_DIR"; then
        echo "nginx's workers (nobody) cannot reach $RUN_DIR: make the folders above it searchable (chmod o+x)," >&2
        echo "or run make serve as the site's own account" >&2
        exit 1
    fi
fi

sed -e "s|@USER@|$USER_LINE|" -e "s|@RUN_DIR@|$RUN_DIR|g" -e "s|@NGINX_DIR@|$NGINX_DIR|g" -e "s|@HOST@|$HOST|g" -e "s|@PORT@|$PORT|g" \
    -e "s|@MAX_BODY@|$MAX_BODY|g" config/nginx.conf.template > "$NGINX_DIR/nginx.conf"
nginx -t -q -c "$NGINX_DIR/nginx.conf" -e stderr

GUNICORN_BIND="unix:$RUN_DIR/gunicorn.sock" .venv/bin/gunicorn -c config/gunicorn.py &
gunicorn=$!
nginx -c "$NGINX_DIR/nginx.conf" -e stderr &
front=$!
stop() {
    kill "$front" "$gunicorn" 2>/dev/null || true
    wait "$front" 2>/dev/null || true
    wait "$gunicorn" 2>/dev/null || true
}
trap 'stop; exit 0' INT TERM
echo "serving on http://$HOST:$PORT/ (nginx in front of gunicorn on $RUN_DIR/gunicorn.sock)"
# Whichever stops first takes the other down with it.
while kill -0 "$front" 2>/dev/null && kill -0 "$gunicorn" 2>/dev/null; do
    sleep 1
done
stop
exit 1
